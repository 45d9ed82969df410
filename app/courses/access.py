"""Course access: enrolled students may work on an assignment's Premium problems.

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
from app.problems import service as problems
from app.problems.models import Problem


def course_grants(session: Session, problem: Problem, user: User, now: datetime) -> bool:
    for course, assignment in repository.access_candidates(session, user.id, problem.id):
        if course.ends_at is not None and now >= course.ends_at:
            continue
        effective = dates.effective(assignment, repository.extension(session, assignment.id, user.id))
        if effective.open_for_course_access(now):
            return True
    return False


def install() -> None:
    problems.register_access_rule("course", course_grants)
