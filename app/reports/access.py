"""Who reads and who answers a test report: the one home of both rules.

- The reporter reads their own reports.
- The problem's owners (author, co-authors) and admins read and answer every report on it.
- An instructor reads and answers a report when the reported submission is their course's work
  by the course privacy rule (:mod:`app.courses.visibility`: a problem of one of the course's
  assignments, inside the assignment's window, while the student was enrolled). An instructor of
  another course, or of this course for work outside its windows, reads nothing.

Anybody else gets the 404 of a report that does not exist, so guessed ids tell nothing.
"""

from __future__ import annotations

from itertools import groupby

from sqlalchemy import ColumnElement, and_, or_, select
from sqlalchemy.orm import Session

from app.accounts.models import User
from app.courses import visibility as course_visibility
from app.problems import visibility
from app.problems.models import Problem
from app.reports import repository
from app.reports.models import TestReport
from app.submissions.models import Submission


def manages(session: Session, problem: Problem, user: User) -> bool:
    """Owners and admins: every report on the problem, and the fix and re-judge."""
    return visibility.can_edit(session, problem, user)


def teaches_work(session: Session, user: User, submission: Submission) -> bool:
    """Whether ``submission`` is the work of a course that ``user`` actively instructs."""
    if not user.is_staff:
        return False
    taught = sorted(
        repository.taught_assignments_with(session, user.id, submission.problem_id), key=lambda a: a.course_id
    )
    for _, assignments in groupby(taught, key=lambda a: a.course_id):
        work = course_visibility.course_work(session, list(assignments), [submission.user_id])
        if work.includes(submission):
            return True
    return False


def answers(
    session: Session, report: TestReport, problem: Problem, submission: Submission, user: User
) -> bool:
    """Whether ``user`` sees the report as staff: with the submission attached, and may answer it."""
    return manages(session, problem, user) or teaches_work(session, user, submission)


def reads(session: Session, report: TestReport, problem: Problem, submission: Submission, user: User) -> bool:
    """The rule in Python (:func:`readable_on` is the same rule in SQL, for a list's pages)."""
    return report.reporter_id == user.id or answers(session, report, problem, submission, user)


def readable_on(session: Session, problem: Problem, user: User) -> ColumnElement[bool]:
    """The reports on ``problem`` that ``user`` reads, in SQL: all for its owners and admins; else
    their own, and those on their courses' work (:meth:`CourseWork.where` for each reporter)."""
    on_problem = TestReport.problem_id == problem.id
    if manages(session, problem, user):
        return on_problem
    readable: list[ColumnElement[bool]] = [TestReport.reporter_id == user.id]
    if user.is_staff:
        reporters = repository.reporters_on(session, problem.id)
        taught = sorted(
            repository.taught_assignments_with(session, user.id, problem.id), key=lambda a: a.course_id
        )
        for _, assignments in groupby(taught, key=lambda a: a.course_id):
            work = course_visibility.course_work(session, list(assignments), reporters)
            seen = [work.where(reporter) for reporter in reporters]
            readable.append(TestReport.submission_id.in_(select(Submission.id).where(or_(*seen))))
    return and_(on_problem, or_(*readable))


def own(user: User) -> ColumnElement[bool]:
    """The reports ``user`` filed (the list without a problem)."""
    return TestReport.reporter_id == user.id
