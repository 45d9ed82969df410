"""Who is in a course: creating it, join codes, rosters, co-instructors, removing and blocking.

Visibility rule used everywhere: a course is 404 to anybody who is not an active member (or an
admin); instructor-only things are 404 to students too, so nobody learns what they cannot see.
"""

from __future__ import annotations

import csv
import io
import secrets
from dataclasses import dataclass, field
from datetime import datetime
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from sqlalchemy.orm import Session

from app.accounts.models import User
from app.accounts.service import require_role
from app.courses import repository
from app.courses.models import (
    ACTIVE,
    BLOCKED,
    INSTRUCTOR,
    REMOVED,
    STUDENT,
    Course,
    CourseInvitation,
    CourseMember,
)
from app.kit.errors import Conflict, Forbidden, InvalidInput, NotFound
from app.kit.fields import check_one_line
from app.kit.paging import Page, decode_cursor, page_of
from runner.format.fields import forbidden_character, one_line_error

CODE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"
MAX_ROSTER_ROWS = 5000


def new_code(length: int = 8) -> str:
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(length))


def normalise_code(code: str) -> str:
    return code.strip().upper().replace(" ", "")[:40]


def _text(value: str, name: str, limit: int, required: bool = False) -> str:
    value = (value or "").strip()
    if required and not value:
        raise InvalidInput(f"{name} is required.")
    if len(value) > limit or "\x00" in value:
        raise InvalidInput(f"{name} is limited to {limit} characters of plain text.")
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
) -> Course:
    """Instructors and admins create courses (students get 403); the creator is the owner."""
    require_role(owner, "instructor", "admin")
    timezone = _text(timezone, "timezone", 64) or "UTC"
    try:
        ZoneInfo(timezone)
    except (ZoneInfoNotFoundError, ValueError):
        raise InvalidInput(f"Unknown timezone {timezone!r}: use an IANA name such as Europe/Paris.") from None
    course = repository.add(
        session,
        Course(
            title=_text(title, "title", 200, required=True),
            term=_text(term, "term", 100),
            timezone=timezone,
            owner_id=owner.id,
            join_code=new_code(),
            join_code_expires_at=join_code_expires_at,
            ends_at=ends_at,
        ),
    )
    repository.add(session, CourseMember(course_id=course.id, user_id=owner.id, role=INSTRUCTOR))
    return course


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


def rotate_join_code(session: Session, course: Course, expires_at: datetime | None = None) -> Course:
    """A new code (the old one stops working at once), optionally expiring."""
    course.join_code = new_code()
    course.join_code_expires_at = expires_at
    session.flush()
    return course


def _enrol(session: Session, course: Course, user: User, section: str = "") -> CourseMember:
    member = repository.membership(session, course.id, user.id)
    if member is None:
        return repository.add(
            session, CourseMember(course_id=course.id, user_id=user.id, role=STUDENT, section=section)
        )
    if member.status == BLOCKED:
        raise Forbidden("Your instructor has blocked you from this course.")
    if member.status == REMOVED:
        member.status = ACTIVE
    if section:
        member.section = section
    session.flush()
    return member


def join(session: Session, user: User, code: str, now: datetime) -> Course:
    """Join with the course's join code or a personal invitation code from a roster."""
    code = normalise_code(code)
    if not code:
        raise InvalidInput("Enter the join code your instructor gave you.")
    course = repository.course_by_code(session, code)
    if course is not None:
        if course.join_code_expires_at is not None and course.join_code_expires_at <= now:
            raise InvalidInput("This join code has expired. Ask your instructor for a new one.")
        if not is_instructor(session, course, user):
            _enrol(session, course, user)
        return course
    invitation = repository.invitation_by_code(session, code)
    if invitation is None:
        raise NotFound("No course has this join code. Check it and try again.")
    course_ = repository.get_course(session, invitation.course_id)
    assert course_ is not None
    if invitation.accepted_by_id not in (None, user.id):
        raise Conflict("This invitation code was already used by someone else.")
    _enrol(session, course_, user, invitation.section)
    invitation.accepted_by_id = user.id
    session.flush()
    return course_


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


def set_student_status(session: Session, course: Course, user_id: int, status: str) -> CourseMember:
    """Remove (may rejoin with the code) or block (may not) a student; ``active`` restores them."""
    if status not in (ACTIVE, REMOVED, BLOCKED):
        raise InvalidInput("status must be active, removed or blocked.")
    member = repository.membership(session, course.id, user_id)
    if member is None or member.role != STUDENT:
        raise NotFound("That student is not in this course.")
    member.status = status
    session.flush()
    return member


@dataclass
class RosterReport:
    enrolled: list[str] = field(default_factory=list)
    invited: list[tuple[str, str]] = field(default_factory=list)  # (email, invitation code)
    skipped: list[tuple[int, str]] = field(default_factory=list)  # (line, reason)


def _roster_rows(text: str) -> list[tuple[int, str, str]]:
    rows = list(csv.reader(io.StringIO(text.lstrip("\ufeff"))))
    if len(rows) > MAX_ROSTER_ROWS:
        raise InvalidInput(f"A roster is limited to {MAX_ROSTER_ROWS} rows.")
    email_col, section_col, start = 0, None, 0
    if rows:
        header = [c.strip().lower() for c in rows[0]]
        if "email" in header:
            email_col = header.index("email")
            section_col = header.index("section") if "section" in header else None
            start = 1
    out = []
    for number, row in enumerate(rows[start:], start=start + 1):
        if not row or not any(c.strip() for c in row):
            continue
        email = row[email_col].strip().lower() if email_col < len(row) else ""
        section = row[section_col].strip() if section_col is not None and section_col < len(row) else ""
        out.append((number, email, section[:100]))
    return out


def import_roster(session: Session, course: Course, text: str) -> RosterReport:
    """Enrol the known emails of a CSV roster; unknown ones get an invitation code to hand out."""
    report = RosterReport()
    for line, email, section in _roster_rows(text):
        if "@" not in email or len(email) > 254 or forbidden_character(email) is not None:
            report.skipped.append((line, f"not an email address: {email[:60]!r}"))
            continue
        if (error := one_line_error("section", section)) is not None:
            report.skipped.append((line, error))
            continue
        user = repository.get_user_by_email(session, email)
        if user is not None:
            member = repository.membership(session, course.id, user.id)
            if member is not None and (member.role == INSTRUCTOR or member.status == BLOCKED):
                report.skipped.append(
                    (line, f"{email} is {member.role if member.role == INSTRUCTOR else 'blocked'}")
                )
                continue
            _enrol(session, course, user, section)
            report.enrolled.append(email)
            continue
        invitation = repository.invitation_for(session, course.id, email)
        if invitation is None:
            invitation = repository.add(
                session,
                CourseInvitation(course_id=course.id, email=email, section=section, code=new_code(10)),
            )
        report.invited.append((email, invitation.code))
    return report


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
    """Roster emails that have no account yet (or whose invitation is still unused)."""
    return [i for i in repository.invitations(session, course.id) if i.accepted_by_id is None]
