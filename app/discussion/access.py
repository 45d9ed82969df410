"""Who does what in a discussion: the one home of these rules.

- Reading and writing follow the problem's gate on every route: a course-only problem's threads
  exist only for who sees the problem (``app.problems.visibility``, a 404 otherwise), a Premium
  problem's are Premium (``app.problems.service.require_access``, 403 ``premium_required``).
- A post is edited and deleted by its author only (a moderator hides it instead). A question
  deleted while it has replies stays as "[deleted]" with them; its author no longer marks them.
- A thread's answer is marked, and a reply pinned, by the thread's author, the problem's owners,
  admins, and the instructors of the courses that use the problem (``app.courses.teaching``).
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy.orm import Session

from app.accounts.models import User
from app.courses.teaching import teaches_problem
from app.discussion import repository
from app.discussion.models import Thread
from app.kit.errors import NotFound
from app.problems import service as problems
from app.problems import visibility
from app.problems.models import Problem


def problem_by_slug(session: Session, slug: str, user: User | None, now: datetime) -> Problem:
    """The problem of a discussion, behind its gate (404 unseen, 403 Premium)."""
    problem = problems.get_published(session, slug, user, now, tags=False)
    problems.require_access(problem, user, now)
    return problem


def problem_of(session: Session, problem_id: int, user: User | None, now: datetime, what: str) -> Problem:
    problem = repository.get_problem(session, problem_id)
    if problem is None:
        raise NotFound(f"There is no {what}.")
    try:
        problems.get_published(session, problem.slug, user, now, tags=False)
    except NotFound:
        raise NotFound(f"There is no {what}.") from None
    problems.require_access(problem, user, now)
    return problem


def sees_post(author_id: int, hidden: bool, deleted: bool, user: User | None) -> bool:
    """A deleted post is nobody's; a hidden one only its author's (marked "hidden by a moderator")."""
    if deleted:
        return False
    return not hidden or (user is not None and user.id == author_id)


def can_mark(session: Session, user: User | None, problem: Problem, thread: Thread) -> bool:
    if user is None:
        return False
    if thread.author_id == user.id and thread.deleted_at is None:
        return True
    return visibility.can_edit(session, problem, user) or teaches_problem(session, user, problem)
