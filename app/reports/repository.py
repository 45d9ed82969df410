"""Every query of the reports domain."""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import ColumnElement, select
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


def page(
    session: Session, readable: ColumnElement[bool], *, status: str | None, below_id: int | None, limit: int
) -> Sequence[TestReport]:
    """Up to ``limit`` reports that ``readable`` admits, newest first, with ids below ``below_id``
    (a keyset page: ``ix_test_reports_problem_id`` / ``ix_test_reports_reporter_id`` serve it)."""
    stmt = select(TestReport).where(readable)
    if status is not None:
        stmt = stmt.where(TestReport.status == status)
    if below_id is not None:
        stmt = stmt.where(TestReport.id < below_id)
    return session.scalars(stmt.order_by(TestReport.id.desc()).limit(limit)).all()


def of_problem(session: Session, problem_id: int) -> Sequence[TestReport]:
    """Every report on a problem, newest first (the re-judge's targets)."""
    stmt = select(TestReport).where(TestReport.problem_id == problem_id)
    return session.scalars(stmt.order_by(TestReport.id.desc())).all()


def reporters_on(session: Session, problem_id: int) -> list[int]:
    """The users who reported a case of the problem."""
    stmt = select(TestReport.reporter_id).where(TestReport.problem_id == problem_id).distinct()
    return sorted(session.scalars(stmt))


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
