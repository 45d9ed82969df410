"""Who is in a course: creating it, join codes, joining (by the code or an invitation's),
co-instructors, leaving, removing and blocking. Rosters, and the invitations they send, are
:mod:`app.courses.invitations`'s.

Consent: a student is enrolled only by their own act — entering the join code, or accepting an
invitation, which only the account with the invited email can do. A roster invites, it never
enrols, and it never invites staff (instructors, admins). Each enrolment opens an
:class:`~app.courses.models.EnrolmentPeriod`; leaving, removal and blocking close it. What the
course's instructors may see of a student's work follows from those periods
(:mod:`app.courses.visibility`).

Visibility rule used everywhere: a course is 404 to anybody who is not an active member (or an
admin); instructor-only things are 404 to students too, so nobody learns what they cannot see.
"""

from __future__ import annotations

import secrets
from datetime import datetime
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from app.accounts.models import User
from app.accounts.service import require_role
from app.courses import repository, work_changes
from app.courses.models import (
    ACTIVE,
    BLOCKED,
    INSTRUCTOR,
    LEFT,
    MEMBER_STATUSES,
    REMOVED,
    STUDENT,
    Course,
    CourseInvitation,
    CourseMember,
    EnrolmentPeriod,
)
from app.kit.db import utcnow
from app.kit.errors import Conflict, Forbidden, InvalidInput, NotFound
from app.kit.fields import check_one_line
from app.kit.paging import Page, decode_cursor, page_of

CODE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"


def new_code(length: int = 8) -> str:
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(length))


def normalise_code(code: str) -> str:
    return code.strip().upper().replace(" ", "")[:40]


def _text(value: str, name: str, limit: int, required: bool = False) -> str:
    value = (value or "").strip()
    if required and not value:
        raise InvalidInput(f"{name} is required.", field=name)
    if len(value) > limit or "\x00" in value:
        raise InvalidInput(f"{name} is limited to {limit} characters of plain text.", field=name)
    return check_one_line(value, name)


def create_course(
    session: Session,
    owner: User,
    title: str,
    *,
    term: str = "",
    timezone: str = "UTC",
    ends_at: datetime | None = None,
    join_code_expires_at: datetime | None = None,
    invitation_only: bool = False,
) -> Course:
    """Instructors and admins create courses (students get 403); the creator is the owner."""
    require_role(owner, "instructor", "admin")
    title, term, timezone = _course_fields(title, term, timezone)
    course = repository.add(
        session,
        Course(
            title=title,
            term=term,
            timezone=timezone,
            owner_id=owner.id,
            join_code=new_code(),
            join_code_expires_at=join_code_expires_at,
            invitation_only=invitation_only,
            ends_at=ends_at,
        ),
    )
    repository.add(session, CourseMember(course_id=course.id, user_id=owner.id, role=INSTRUCTOR))
    return course


def _course_fields(title: str, term: str, timezone: str) -> tuple[str, str, str]:
    """A course's title, term and timezone checked, each refusal naming its field."""
    title = _text(title, "title", 200, required=True)
    term = _text(term, "term", 100)
    timezone = _text(timezone, "timezone", 64) or "UTC"
    try:
        ZoneInfo(timezone)
    except (ZoneInfoNotFoundError, ValueError):
        raise InvalidInput(
            f"Unknown timezone {timezone!r}: use an IANA name such as Europe/Paris.", field="timezone"
        ) from None
    return title, term, timezone


def update_course(session: Session, course: Course, title: str, term: str, timezone: str) -> Course:
    """Edit a course's title, term and timezone (the caller instructs it). Stored times are UTC, so a
    new timezone changes how deadlines are shown and typed, never when they fall."""
    course.title, course.term, course.timezone = _course_fields(title, term, timezone)
    session.flush()
    return course


def same_email(user: User, email: str) -> bool:
    return user.email.strip().lower() == email.strip().lower()


def is_instructor(session: Session, course: Course, user: User | None) -> bool:
    if user is None:
        return False
    if user.is_admin:
        return True
    member = repository.membership(session, course.id, user.id)
    return member is not None and member.role == INSTRUCTOR and member.status == ACTIVE


def is_student(session: Session, course: Course, user: User | None) -> bool:
    if user is None:
        return False
    member = repository.membership(session, course.id, user.id)
    return member is not None and member.role == STUDENT and member.status == ACTIVE


def _missing(course_id: int) -> NotFound:
    return NotFound(f"There is no course #{course_id}.")


def course_for_member(session: Session, course_id: int, user: User) -> Course:
    """The course, for its instructors (and admins) and active students; 404 for anybody else."""
    course = repository.get_course(session, course_id)
    if course is None or not (is_instructor(session, course, user) or is_student(session, course, user)):
        raise _missing(course_id)
    return course


def course_for_instructor(session: Session, course_id: int, user: User) -> Course:
    course = repository.get_course(session, course_id)
    if course is None or not is_instructor(session, course, user):
        raise _missing(course_id)
    return course


def set_invitation_only(session: Session, course: Course, invitation_only: bool) -> Course:
    """Invitation only: the join code enrols nobody (students already in stay in)."""
    course.invitation_only = invitation_only
    session.flush()
    return course


def rotate_join_code(session: Session, course: Course, expires_at: datetime | None = None) -> Course:
    """A new code (the old one stops working at once), optionally expiring."""
    course.join_code = new_code()
    course.join_code_expires_at = expires_at
    session.flush()
    return course


def _enrol(session: Session, course: Course, user: User, now: datetime, section: str = "") -> CourseMember:
    """The user's own acceptance: a student member, active from ``now`` (a new enrolment period)."""
    member = repository.membership(session, course.id, user.id)
    if member is None:
        try:
            with session.begin_nested():
                member = repository.add(
                    session, CourseMember(course_id=course.id, user_id=user.id, role=STUDENT, section=section)
                )
        except IntegrityError:  # the same join, twice at once: the other request made the member
            member = repository.membership(session, course.id, user.id)
            assert member is not None
    if member.status == BLOCKED:
        raise Forbidden("Your instructor has blocked you from this course.")
    if member.status != ACTIVE:
        member.status = ACTIVE
    if section:
        member.section = section
    opened = repository.open_period(session, course.id, user.id) is None
    if opened:
        repository.add(session, EnrolmentPeriod(course_id=course.id, user_id=user.id, joined_at=now))
    pending = repository.invitation_for(session, course.id, user.email.lower())
    if pending is not None and pending.accepted_by_id is None:
        pending.accepted_by_id, pending.declined_at = user.id, None
    session.flush()
    if opened:
        work_changes.changed(session, course.id, None, [user.id])
    return member


def enrol_student(session: Session, course: Course, user: User, now: datetime) -> CourseMember:
    """Enrol a student on a trusted source's word (an LMS launch or its roster: app/lti), as a join would."""
    return _enrol(session, course, user, now)


def make_instructor(session: Session, course: Course, user: User) -> CourseMember:
    """Make ``user`` an active instructor of the course on a trusted source's word (an LMS launch)."""
    member = repository.membership(session, course.id, user.id)
    if member is None:
        member = repository.add(session, CourseMember(course_id=course.id, user_id=user.id, role=INSTRUCTOR))
    elif member.role != INSTRUCTOR or member.status != ACTIVE:
        if member.role == STUDENT:
            repository.close_periods(session, course.id, user.id, utcnow())
            work_changes.changed(session, course.id, None, [user.id])
        member.role, member.status = INSTRUCTOR, ACTIVE
    session.flush()
    return member


def join(session: Session, user: User, code: str, now: datetime) -> Course:
    """Join with the course's join code, or accept a personal invitation (its email's account only)."""
    code = normalise_code(code)
    if not code:
        raise InvalidInput("Enter the join code your instructor gave you.")
    course = repository.course_by_code(session, code)
    if course is not None:
        if is_instructor(session, course, user):
            return course
        if course.invitation_only:
            raise Forbidden("This course takes invited students only. Ask your instructor for an invitation.")
        if course.join_code_expires_at is not None and course.join_code_expires_at <= now:
            raise InvalidInput("This join code has expired. Ask your instructor for a new one.")
        _enrol(session, course, user, now)
        return course
    invitation = repository.invitation_by_code(session, code)
    if invitation is None:
        raise NotFound("No course has this join code. Check it and try again.")
    if not same_email(user, invitation.email):
        raise Forbidden(
            "This invitation is for another email address. Log in with the account it was sent to."
        )
    if invitation.accepted_by_id not in (None, user.id):
        raise Conflict("This invitation code was already used by someone else.")
    course_ = repository.get_course(session, invitation.course_id)
    assert course_ is not None
    if not is_instructor(session, course_, user):
        _enrol(session, course_, user, now, invitation.section)
    invitation.accepted_by_id, invitation.declined_at = user.id, None
    session.flush()
    return course_


def leave(session: Session, course: Course, user: User, now: datetime) -> CourseMember:
    """A student leaves: out of the course at once; their work from now on is never the course's.

    Work done while they were enrolled stays in the course's record (the drill-down), as grades do;
    they may come back with the join code or an invitation (a new enrolment period).
    """
    member = repository.membership(session, course.id, user.id)
    if member is None or member.status != ACTIVE:
        raise _missing(course.id)
    if member.role != STUDENT:
        raise Conflict("Instructors do not leave a course this way (ask another instructor to remove you).")
    member.status = LEFT
    repository.close_periods(session, course.id, user.id, now)
    session.flush()
    work_changes.changed(session, course.id, None, [user.id])
    return member


def add_instructor(session: Session, course: Course, actor: User, email: str) -> CourseMember:
    """Co-instructors: any course instructor may add an existing instructor or admin account."""
    if not is_instructor(session, course, actor):
        raise _missing(course.id)
    user = repository.get_user_by_email(session, email.strip().lower())
    if user is None:
        raise NotFound(f"There is no account for {email!r}; they must sign up first.")
    if not user.is_staff:
        raise InvalidInput("Co-instructors need an instructor account (ask an admin to change the role).")
    member = repository.membership(session, course.id, user.id)
    if member is None:
        member = repository.add(session, CourseMember(course_id=course.id, user_id=user.id, role=INSTRUCTOR))
    else:
        member.role, member.status = INSTRUCTOR, ACTIVE
        session.flush()
    return member


def set_student_status(
    session: Session, course: Course, user_id: int, status: str, now: datetime
) -> CourseMember:
    """Remove (may rejoin) or block (may not) a student; ``removed`` also unblocks a blocked one.

    Nobody but the student makes them active: ``active`` is accepted only for a student who is
    active already (a no-op), otherwise 409 — they rejoin by the join code or an invitation.
    """
    if status not in MEMBER_STATUSES or status == LEFT:
        raise InvalidInput("status must be removed or blocked (active: only by the student's own joining).")
    member = repository.membership(session, course.id, user_id)
    if member is None or member.role != STUDENT:
        raise NotFound("That student is not in this course.")
    if status == ACTIVE:
        if member.status != ACTIVE:
            raise Conflict(
                "Only the student can rejoin (with the join code or an invitation). "
                "To let a blocked student rejoin, set them to removed."
            )
        return member
    if member.status == LEFT and status == REMOVED:
        return member  # already out; "left" says more
    member.status = status
    repository.close_periods(session, course.id, user_id, now)
    session.flush()
    work_changes.changed(session, course.id, None, [user_id])
    return member


def my_courses(session: Session, user: User) -> list[tuple[Course, CourseMember]]:
    return list(repository.courses_of(session, user.id))


def page_of_my_courses(
    session: Session, user: User, after: str | None, limit: int
) -> Page[tuple[Course, CourseMember]]:
    """One page of :func:`my_courses` (newest first), after the cursor ``after``."""
    key = decode_cursor(after, (datetime, int)) if after else None
    rows = repository.courses_of(session, user.id, after=key, limit=limit + 1)
    return page_of(rows, limit, repository.course_key)


def members(session: Session, course: Course) -> list[tuple[CourseMember, User]]:
    """Everyone in the course (any role and status), by email: the course page's roster."""
    return list(repository.members_with_users(session, course.id))


def invitations(session: Session, course: Course) -> list[CourseInvitation]:
    """Invitations not accepted (yet): open ones, and declined ones (``declined_at`` set)."""
    return [i for i in repository.invitations(session, course.id) if i.accepted_by_id is None]
