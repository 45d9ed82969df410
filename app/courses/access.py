"""Course access: enrolled students may work on an assignment's Premium problems; who is "inside"
a course for its course-only problems (``app.problems.visibility``).

From the student's (effective) release until the course ends; an assignment that is "closed"
after its last window stops granting access then. Plugged into the premium gate
(:func:`app.problems.service.can_work_on`) by :func:`install`, so every route that checks the
gate honours it and nothing else needs to know.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy.orm import Session

from app.accounts.models import User
from app.courses import dates, repository
from app.courses.models import ACTIVE, INSTRUCTOR
from app.problems import service as problems
from app.problems import visibility
from app.problems.models import Problem


def course_grants(session: Session, problem: Problem, user: User, now: datetime) -> bool:
    for course, assignment in repository.access_candidates(session, user.id, problem.id):
        if course.ends_at is not None and now >= course.ends_at:
            continue
        effective = dates.effective(assignment, repository.extension(session, assignment.id, user.id))
        if effective.open_for_course_access(now):
            return True
    return False


def teaches(session: Session, course_id: int, user: User) -> bool:
    """An active instructor of the course (admins are decided by ``visibility.teaches``)."""
    member = repository.membership(session, course_id, user.id)
    return member is not None and member.role == INSTRUCTOR and member.status == ACTIVE


def sees_course_problem(session: Session, course_id: int, problem_id: int, user: User, now: datetime) -> bool:
    """Inside the course: its active instructors always; its active students once an assignment of
    this course holding the problem is released to them (their extension's release counts)."""
    if teaches(session, course_id, user):
        return True
    for course, assignment in repository.access_candidates(session, user.id, problem_id):
        if course.id != course_id:
            continue
        if dates.effective(assignment, repository.extension(session, assignment.id, user.id)).released(now):
            return True
    return False


def courses_taught(session: Session, user: User) -> list[tuple[int, str]]:
    """(id, title) of the courses the user actively instructs, newest first: where their problems may go."""
    return [(c.id, c.title) for c, m in repository.courses_of(session, user.id) if m.role == INSTRUCTOR]


def install() -> None:
    problems.register_access_rule("course", course_grants)
    visibility.install_course_rules(
        visibility.CourseRules(sees=sees_course_problem, teaches=teaches, taught=courses_taught)
    )
