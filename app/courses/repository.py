"""Every query of the courses domain."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import TypeVar

from sqlalchemy import ColumnElement, func, select, tuple_
from sqlalchemy.orm import Session

from app.accounts.models import User
from app.courses.models import (
    ACTIVE,
    STUDENT,
    Assignment,
    AssignmentProblem,
    Course,
    CourseInvitation,
    CourseMember,
    EnrolmentPeriod,
    Extension,
    Regrade,
)
from app.problems.models import ProblemVersion
from app.submissions.models import Submission

T = TypeVar("T")

# Keyset pages (app.kit.paging): each list's sort key, compared with a cursor in its own order.
CourseKey = tuple[datetime, int]  # My courses: (course created_at, course id), newest first
StudentKey = tuple[str, int]  # the gradebook: (email, user id)
AssignmentKey = tuple[datetime, int]  # a course's assignments: (due_at, id)
AttemptKey = tuple[datetime, int]  # a student's attempts (the drill-down): (created_at, id), newest first


def add(session: Session, row: T) -> T:
    session.add(row)
    session.flush()
    return row


def get_course(session: Session, course_id: int) -> Course | None:
    return session.get(Course, course_id)


def course_by_code(session: Session, code: str) -> Course | None:
    return session.scalars(select(Course).where(Course.join_code == code)).first()


def invitation_by_code(session: Session, code: str) -> CourseInvitation | None:
    return session.scalars(select(CourseInvitation).where(CourseInvitation.code == code)).first()


def invitations(session: Session, course_id: int) -> Sequence[CourseInvitation]:
    stmt = select(CourseInvitation).where(CourseInvitation.course_id == course_id)
    return session.scalars(stmt.order_by(CourseInvitation.email)).all()


def invitation_for(session: Session, course_id: int, email: str) -> CourseInvitation | None:
    stmt = select(CourseInvitation).where(
        CourseInvitation.course_id == course_id, CourseInvitation.email == email
    )
    return session.scalars(stmt).first()


def pending_invitations_for(session: Session, email: str) -> Sequence[tuple[CourseInvitation, Course]]:
    """Invitations of this email that nobody accepted or declined yet, newest first."""
    stmt = (
        select(CourseInvitation, Course)
        .join(Course, Course.id == CourseInvitation.course_id)
        .where(
            CourseInvitation.email == email,
            CourseInvitation.accepted_by_id.is_(None),
            CourseInvitation.declined_at.is_(None),
        )
        .order_by(CourseInvitation.created_at.desc(), CourseInvitation.id.desc())
    )
    return [(i, c) for i, c in session.execute(stmt).all()]


def get_invitation(session: Session, invitation_id: int) -> CourseInvitation | None:
    return session.get(CourseInvitation, invitation_id)


def open_period(session: Session, course_id: int, user_id: int) -> EnrolmentPeriod | None:
    """The student's current enrolment period in the course (None: not enrolled now)."""
    stmt = select(EnrolmentPeriod).where(
        EnrolmentPeriod.course_id == course_id,
        EnrolmentPeriod.user_id == user_id,
        EnrolmentPeriod.left_at.is_(None),
    )
    return session.scalars(stmt).first()


def close_periods(session: Session, course_id: int, user_id: int, at: datetime) -> None:
    """End every open enrolment period of the student in the course at ``at`` (never before it
    began): all of them, so even two periods opened by a race both end."""
    stmt = select(EnrolmentPeriod).where(
        EnrolmentPeriod.course_id == course_id,
        EnrolmentPeriod.user_id == user_id,
        EnrolmentPeriod.left_at.is_(None),
    )
    for period in session.scalars(stmt):
        period.left_at = max(at, period.joined_at)
    session.flush()


def enrolment_periods(session: Session, course_id: int, user_ids: Sequence[int]) -> Sequence[EnrolmentPeriod]:
    """Every enrolment period of these students in the course (ix_course_enrolment_periods_course_user)."""
    if not user_ids:
        return []
    stmt = select(EnrolmentPeriod).where(
        EnrolmentPeriod.course_id == course_id, EnrolmentPeriod.user_id.in_(user_ids)
    )
    return session.scalars(stmt.order_by(EnrolmentPeriod.joined_at, EnrolmentPeriod.id)).all()


def membership(session: Session, course_id: int, user_id: int) -> CourseMember | None:
    stmt = select(CourseMember).where(CourseMember.course_id == course_id, CourseMember.user_id == user_id)
    return session.scalars(stmt).first()


def members_with_users(
    session: Session, course_id: int, role: str | None = None
) -> Sequence[tuple[CourseMember, User]]:
    stmt = (
        select(CourseMember, User)
        .join(User, User.id == CourseMember.user_id)
        .where(CourseMember.course_id == course_id)
        .order_by(User.email)
    )
    if role is not None:
        stmt = stmt.where(CourseMember.role == role)
    return [(m, u) for m, u in session.execute(stmt).all()]


def active_students(session: Session, course_id: int) -> Sequence[tuple[CourseMember, User]]:
    return [(m, u) for m, u in members_with_users(session, course_id, STUDENT) if m.status == ACTIVE]


def courses_of(
    session: Session, user_id: int, *, after: CourseKey | None = None, limit: int | None = None
) -> Sequence[tuple[Course, CourseMember]]:
    """The user's active memberships, newest course first; keyset-paged by ``after``.

    The user's memberships come from ix_course_members_user_id; their courses are sorted by
    (created_at, id) after the join, so a page costs the number of the user's courses, not of all.
    """
    stmt = (
        select(Course, CourseMember)
        .join(CourseMember, CourseMember.course_id == Course.id)
        .where(CourseMember.user_id == user_id, CourseMember.status == ACTIVE)
        .order_by(Course.created_at.desc(), Course.id.desc())
    )
    if after is not None:
        stmt = stmt.where(tuple_(Course.created_at, Course.id) < after)
    return [(c, m) for c, m in session.execute(stmt.limit(limit) if limit is not None else stmt).all()]


def course_key(row: tuple[Course, CourseMember]) -> CourseKey:
    return (row[0].created_at, row[0].id)


def _students_where(course_id: int, section: str | None, text: str | None) -> list[ColumnElement[bool]]:
    """The gradebook's filters: the course's active students, one section, an email substring."""
    where: list[ColumnElement[bool]] = [
        CourseMember.course_id == course_id,
        CourseMember.role == STUDENT,
        CourseMember.status == ACTIVE,
    ]
    if section:
        where.append(CourseMember.section == section)
    if text:
        pattern = "%" + text.lower().replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
        where.append(func.lower(User.email).like(pattern, escape="\\"))
    return where


def students_page(
    session: Session,
    course_id: int,
    *,
    section: str | None,
    text: str | None,
    after: StudentKey | None,
    limit: int,
) -> Sequence[tuple[CourseMember, User]]:
    """Active students in gradebook order (email, id), filtered like the gradebook; keyset-paged.

    The course's members come from uq_course_members_course_user (course_id first); each page is
    sorted after the join with users (its key lives in ``users``), bounded by the course's size.
    """
    stmt = (
        select(CourseMember, User)
        .join(User, User.id == CourseMember.user_id)
        .where(*_students_where(course_id, section, text))
    )
    if after is not None:
        stmt = stmt.where(tuple_(User.email, User.id) > after)
    stmt = stmt.order_by(User.email, User.id).limit(limit)
    return [(m, u) for m, u in session.execute(stmt).all()]


def count_students(
    session: Session, course_id: int, *, section: str | None, text: str | None, upto: StudentKey | None
) -> tuple[int, int]:
    """(students up to and including the key ``upto``, all of them), filtered like the gradebook:
    where a page starts and how many there are, read from the course's roster like a page."""
    where = _students_where(course_id, section, text)
    counted = select(func.count()).select_from(CourseMember).join(User, User.id == CourseMember.user_id)
    total = session.scalar(counted.where(*where)) or 0
    before = 0
    if upto is not None:
        before = session.scalar(counted.where(*where, tuple_(User.email, User.id) <= upto)) or 0
    return before, total


def student_key(row: tuple[CourseMember, User]) -> StudentKey:
    return (row[1].email, row[1].id)


def sections(session: Session, course_id: int) -> list[str]:
    """The sections of the course's active students (the gradebook's filter), sorted."""
    stmt = (
        select(CourseMember.section)
        .where(
            CourseMember.course_id == course_id,
            CourseMember.role == STUDENT,
            CourseMember.status == ACTIVE,
            CourseMember.section != "",
        )
        .distinct()
    )
    return sorted(session.scalars(stmt))


def get_user_by_email(session: Session, email: str) -> User | None:
    return session.scalars(select(User).where(User.email == email)).first()


def get_user(session: Session, user_id: int) -> User | None:
    return session.get(User, user_id)


def get_assignment(session: Session, assignment_id: int) -> Assignment | None:
    return session.get(Assignment, assignment_id)


def assignments(session: Session, course_id: int) -> Sequence[Assignment]:
    stmt = select(Assignment).where(Assignment.course_id == course_id)
    return session.scalars(stmt.order_by(Assignment.due_at, Assignment.id)).all()


def assignments_page(
    session: Session,
    course_id: int,
    *,
    released_for: tuple[int, datetime] | None,
    after: AssignmentKey | None,
    limit: int,
) -> Sequence[Assignment]:
    """A course's assignments by (due_at, id) (ix_assignments_course_due), keyset-paged.

    ``released_for=(user id, now)`` keeps those released for that student by their own dates: an
    extension's ``release_at`` replaces the assignment's (as :func:`app.courses.dates.effective`).
    """
    stmt = select(Assignment).where(Assignment.course_id == course_id)
    if released_for is not None:
        user_id, now = released_for
        stmt = stmt.outerjoin(
            Extension, (Extension.assignment_id == Assignment.id) & (Extension.user_id == user_id)
        ).where(func.coalesce(Extension.release_at, Assignment.release_at) <= now)
    if after is not None:
        stmt = stmt.where(tuple_(Assignment.due_at, Assignment.id) > after)
    return session.scalars(stmt.order_by(Assignment.due_at, Assignment.id).limit(limit)).all()


def assignment_key(assignment: Assignment) -> AssignmentKey:
    return (assignment.due_at, assignment.id)


def extension(session: Session, assignment_id: int, user_id: int) -> Extension | None:
    stmt = select(Extension).where(Extension.assignment_id == assignment_id, Extension.user_id == user_id)
    return session.scalars(stmt).first()


def extensions(session: Session, assignment_ids: Sequence[int]) -> Sequence[Extension]:
    if not assignment_ids:
        return []
    return session.scalars(select(Extension).where(Extension.assignment_id.in_(assignment_ids))).all()


def access_candidates(session: Session, user_id: int, problem_id: int) -> Sequence[tuple[Course, Assignment]]:
    """Assignments holding the problem in courses where the user is an active student."""
    stmt = (
        select(Course, Assignment)
        .join(Assignment, Assignment.course_id == Course.id)
        .join(AssignmentProblem, AssignmentProblem.assignment_id == Assignment.id)
        .join(CourseMember, CourseMember.course_id == Course.id)
        .where(
            AssignmentProblem.problem_id == problem_id,
            CourseMember.user_id == user_id,
            CourseMember.status == ACTIVE,
        )
    )
    return [(c, a) for c, a in session.execute(stmt).all()]


def submit_submissions(
    session: Session, user_ids: Sequence[int], problem_ids: Sequence[int]
) -> Sequence[Submission]:
    """Finished submit-mode submissions of these students on these problems (scoring's only input)."""
    if not user_ids or not problem_ids:
        return []
    stmt = (
        select(Submission)
        .where(
            Submission.user_id.in_(user_ids),
            Submission.problem_id.in_(problem_ids),
            Submission.mode == "submit",
        )
        .order_by(Submission.created_at, Submission.id)
    )
    return session.scalars(stmt).all()


def attempts(session: Session, user_id: int, problem_ids: Sequence[int]) -> Sequence[Submission]:
    """A user's own submissions on these problems, newest first (their own view, not an instructor's)."""
    if not problem_ids:
        return []
    stmt = select(Submission).where(Submission.user_id == user_id, Submission.problem_id.in_(problem_ids))
    return session.scalars(stmt.order_by(Submission.created_at.desc(), Submission.id.desc())).all()


def attempts_page(
    session: Session, visible: ColumnElement[bool], *, after: AttemptKey | None, limit: int
) -> Sequence[Submission]:
    """A student's submissions that ``visible`` admits, newest first by (created_at, id); keyset-paged.

    ``visible`` is :meth:`app.courses.visibility.CourseWork.where` for one student: it pins
    ``user_id`` and bounds ``created_at`` and the problems, so ix_submissions_user_created
    (user_id, created_at, id) is read backwards from the cursor, the rest checked on the way: a page
    costs its rows (and the student's other practice in between), not every attempt. Regrade copies
    belong to their system account, never to the student, so none is in here.
    """
    stmt = select(Submission).where(visible)
    if after is not None:
        stmt = stmt.where(tuple_(Submission.created_at, Submission.id) < after)
    order = (Submission.created_at.desc(), Submission.id.desc())
    return session.scalars(stmt.order_by(*order).limit(limit)).all()


def attempt_key(submission: Submission) -> AttemptKey:
    return (submission.created_at, submission.id)


def regrades(session: Session, assignment_ids: Sequence[int]) -> Sequence[Regrade]:
    if not assignment_ids:
        return []
    stmt = select(Regrade).where(Regrade.assignment_id.in_(assignment_ids))
    return session.scalars(stmt.order_by(Regrade.id)).all()


def regrade_for(session: Session, assignment_id: int, problem_id: int, version_id: int) -> Regrade | None:
    stmt = select(Regrade).where(
        Regrade.assignment_id == assignment_id,
        Regrade.problem_id == problem_id,
        Regrade.version_id == version_id,
    )
    return session.scalars(stmt).first()


def get_regrade(session: Session, regrade_id: int) -> Regrade | None:
    return session.get(Regrade, regrade_id)


def submissions_by_ids(session: Session, ids: Sequence[int]) -> Sequence[Submission]:
    if not ids:
        return []
    return session.scalars(select(Submission).where(Submission.id.in_(ids))).all()


def version_numbers(session: Session, version_ids: Sequence[int]) -> dict[int, int]:
    """``{version id: number}`` ("v3" on the pages) of these problem versions."""
    if not version_ids:
        return {}
    stmt = select(ProblemVersion.id, ProblemVersion.number).where(ProblemVersion.id.in_(version_ids))
    return {vid: number for vid, number in session.execute(stmt)}
