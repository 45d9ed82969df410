"""Every query of the courses domain."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

from sqlalchemy import select
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
    Extension,
    Regrade,
)
from app.problems.models import ProblemVersion
from app.submissions.models import Submission

T = TypeVar("T")


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


def courses_of(session: Session, user_id: int) -> Sequence[tuple[Course, CourseMember]]:
    stmt = (
        select(Course, CourseMember)
        .join(CourseMember, CourseMember.course_id == Course.id)
        .where(CourseMember.user_id == user_id, CourseMember.status == ACTIVE)
        .order_by(Course.created_at.desc(), Course.id.desc())
    )
    return [(c, m) for c, m in session.execute(stmt).all()]


def get_user_by_email(session: Session, email: str) -> User | None:
    return session.scalars(select(User).where(User.email == email)).first()


def get_user(session: Session, user_id: int) -> User | None:
    return session.get(User, user_id)


def get_assignment(session: Session, assignment_id: int) -> Assignment | None:
    return session.get(Assignment, assignment_id)


def assignments(session: Session, course_id: int) -> Sequence[Assignment]:
    stmt = select(Assignment).where(Assignment.course_id == course_id)
    return session.scalars(stmt.order_by(Assignment.due_at, Assignment.id)).all()


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
    if not problem_ids:
        return []
    stmt = select(Submission).where(Submission.user_id == user_id, Submission.problem_id.in_(problem_ids))
    return session.scalars(stmt.order_by(Submission.created_at.desc(), Submission.id.desc())).all()


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
