"""Who moderates what: the one home of the rule.

Admins moderate every post on the site. An instructor moderates the posts on the problems their
courses use (an assignment of theirs holds it, or it is their course's course-only problem:
``app.courses.teaching``). Nobody else sees the queue; a report outside one's scope answers 404,
like one that does not exist.
"""

from __future__ import annotations

from sqlalchemy.orm import Session

from app.accounts.models import User
from app.courses.teaching import taught_problem_ids, teaches_problem
from app.problems.models import Problem


def moderates(session: Session, user: User, problem: Problem) -> bool:
    return user.is_admin or teaches_problem(session, user, problem)


def scope(session: Session, user: User) -> set[int] | None:
    """The problem ids whose posts ``user`` moderates; None means every problem (admins)."""
    if user.is_admin:
        return None
    if not user.is_staff:
        return set()
    return taught_problem_ids(session, user)
