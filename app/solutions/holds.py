"""The instructor's choice per assignment: hold its problems' solutions from the course's students
until the assignment closes for each of them (:mod:`app.solutions.access` applies it)."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy.orm import Session

from app.accounts.models import User
from app.courses import repository as courses
from app.courses.models import Assignment
from app.kit.errors import NotFound
from app.problems import visibility
from app.solutions import repository
from app.solutions.models import SolutionHold


def is_held(session: Session, assignment_id: int) -> bool:
    return repository.hold(session, assignment_id) is not None


def taught_assignment(session: Session, user: User, assignment_id: int) -> Assignment:
    """The assignment if ``user`` instructs its course (or is an admin); 404 for anybody else."""
    assignment = courses.get_assignment(session, assignment_id)
    if assignment is None or not user.is_staff or not visibility.teaches(session, assignment.course_id, user):
        raise NotFound(f"There is no assignment #{assignment_id} that you teach.")
    return assignment


def set_hold(session: Session, user: User, assignment_id: int, held: bool, now: datetime) -> bool:
    """Hold (or release) an assignment's solutions; only the course's instructors and admins."""
    taught_assignment(session, user, assignment_id)
    row = repository.hold(session, assignment_id)
    if held and row is None:
        repository.add(session, SolutionHold(assignment_id=assignment_id, set_by_id=user.id, created_at=now))
    elif not held and row is not None:
        session.delete(row)
        session.flush()
    return held
