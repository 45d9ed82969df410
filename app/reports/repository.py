"""Every query of the reports domain."""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.accounts.models import User
from app.courses.models import ACTIVE, INSTRUCTOR, Assignment, AssignmentProblem, CourseMember
from app.reports.models import TestReport
from app.submissions.models import Submission


def add(session: Session, report: TestReport) -> TestReport:
    session.add(report)
    session.flush()
    return report


def get(session: Session, report_id: int) -> TestReport | None:
    return session.get(TestReport, report_id)


def for_case(session: Session, submission_id: int, case_name: str) -> TestReport | None:
    stmt = select(TestReport).where(
        TestReport.submission_id == submission_id, TestReport.case_name == case_name
    )
    return session.scalars(stmt).first()


def of_submission(session: Session, submission_id: int) -> Sequence[TestReport]:
    stmt = select(TestReport).where(TestReport.submission_id == submission_id).order_by(TestReport.id)
    return session.scalars(stmt).all()


def of_reporter(
    session: Session, reporter_id: int, *, problem_id: int | None, before_id: int | None, limit: int
) -> Sequence[TestReport]:
    stmt = select(TestReport).where(TestReport.reporter_id == reporter_id)
    if problem_id is not None:
        stmt = stmt.where(TestReport.problem_id == problem_id)
    if before_id is not None:
        stmt = stmt.where(TestReport.id < before_id)
    return session.scalars(stmt.order_by(TestReport.id.desc()).limit(limit)).all()


def of_problem(
    session: Session, problem_id: int, *, status: str | None = None, before_id: int | None = None
) -> Sequence[TestReport]:
    """A problem's reports, newest first (the caller filters what the reader may see)."""
    stmt = select(TestReport).where(TestReport.problem_id == problem_id)
    if status is not None:
        stmt = stmt.where(TestReport.status == status)
    if before_id is not None:
        stmt = stmt.where(TestReport.id < before_id)
    return session.scalars(stmt.order_by(TestReport.id.desc())).all()


def rejudged_by(session: Session, copy_id: int) -> Sequence[TestReport]:
    """The reports whose re-judge is the copy ``copy_id``."""
    return session.scalars(select(TestReport).where(TestReport.rejudge_id == copy_id)).all()


def submissions_by_ids(session: Session, ids: set[int]) -> dict[int, Submission]:
    if not ids:
        return {}
    return {s.id: s for s in session.scalars(select(Submission).where(Submission.id.in_(sorted(ids))))}


def users_by_ids(session: Session, ids: set[int]) -> dict[int, User]:
    if not ids:
        return {}
    return {u.id: u for u in session.scalars(select(User).where(User.id.in_(sorted(ids))))}


def taught_assignments_with(session: Session, user_id: int, problem_id: int) -> Sequence[Assignment]:
    """The assignments holding the problem in courses the user actively instructs."""
    stmt = (
        select(Assignment)
        .join(AssignmentProblem, AssignmentProblem.assignment_id == Assignment.id)
        .join(CourseMember, CourseMember.course_id == Assignment.course_id)
        .where(
            AssignmentProblem.problem_id == problem_id,
            CourseMember.user_id == user_id,
            CourseMember.role == INSTRUCTOR,
            CourseMember.status == ACTIVE,
        )
    )
    return session.scalars(stmt).unique().all()
