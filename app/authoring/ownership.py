"""Who may edit a problem, and managing its owners: the author adds and removes co-authors.

- The creator of a problem is its *author*; the author (or an admin) adds *co-authors*, who edit,
  publish and unpublish it as the author does but do not manage its owners (a co-author may leave).
- The shipped bank has no owners: only admins edit it.
- Someone who may not edit a problem is told so (403) only when the problem is public anyway (a
  published site-wide one); otherwise they get the 404 of a slug that does not exist, so a course's
  unpublished or course-only problems cannot be found by guessing slugs.

The rule itself (``can_edit``) lives with the problem, in ``app.problems.visibility``.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from app.accounts import service as accounts
from app.accounts.models import User
from app.authoring import repository
from app.kit.errors import Conflict, Forbidden, InvalidInput, NotFound
from app.problems import repository as problems_repository
from app.problems import visibility
from app.problems.models import AUTHOR, COAUTHOR, Problem, ProblemOwner

MAX_EMAIL = 254


def missing(slug: str) -> NotFound:
    return NotFound(f"There is no problem called {slug[:80]!r} that you can edit.")


def editable(session: Session, slug: str, user: User) -> Problem:
    """The problem ``slug`` if ``user`` may edit it; 403 when it is public anyway, else 404."""
    problem = (
        problems_repository.get_by_slug(session, slug) if len(slug) <= 80 and "\x00" not in slug else None
    )
    if problem is None:
        raise missing(slug)
    if not visibility.can_edit(session, problem, user):
        if problem.published and problem.current_version_id is not None and not problem.course_only:
            raise Forbidden(
                f"You do not own {slug!r}: only its author, its co-authors and admins edit it. "
                "Ask its author to add you as a co-author."
            )
        raise missing(slug)
    return problem


def make_author(session: Session, problem: Problem, user: User) -> None:
    repository.add_owner(
        session, ProblemOwner(problem_id=problem.id, user_id=user.id, role=AUTHOR, added_by_id=user.id)
    )


@dataclass(frozen=True)
class OwnerView:
    user_id: int
    email: str
    role: str
    added_at: datetime


def owners(session: Session, problem: Problem) -> list[OwnerView]:
    return [
        OwnerView(u.id, u.email, o.role, o.created_at)
        for o, u in repository.owners_with_users(session, problem.id)
    ]


def can_manage(session: Session, problem: Problem, user: User) -> bool:
    """The author and admins manage a problem's owners."""
    return user.is_admin or problems_repository.owner_role(session, problem.id, user.id) == AUTHOR


def _require_manager(session: Session, problem: Problem, actor: User) -> None:
    if not can_manage(session, problem, actor):
        raise Forbidden(f"Only the author of {problem.slug!r} (or an admin) adds and removes co-authors.")


def add_coauthor(session: Session, problem: Problem, actor: User, email: str) -> OwnerView:
    """Make the instructor (or admin) with ``email`` a co-author; the actor must be the author or an admin."""
    _require_manager(session, problem, actor)
    email = (email or "").strip()
    if not email or len(email) > MAX_EMAIL or "\x00" in email:
        raise InvalidInput("Give the email address of an instructor's account.")
    try:
        user = accounts.get_user_by_email(session, email)
    except NotFound:
        raise NotFound(f"There is no instructor with email {email[:MAX_EMAIL]!r}.") from None
    if not user.is_staff:
        raise InvalidInput(f"{user.email} is not an instructor: only instructors and admins author problems.")
    if problems_repository.owner_role(session, problem.id, user.id) is not None:
        raise Conflict(f"{user.email} already owns {problem.slug!r}.")
    try:
        with session.begin_nested():
            owner = repository.add_owner(
                session,
                ProblemOwner(problem_id=problem.id, user_id=user.id, role=COAUTHOR, added_by_id=actor.id),
            )
    except IntegrityError:  # added by someone else between the check and the insert
        raise Conflict(f"{user.email} already owns {problem.slug!r}.") from None
    return OwnerView(user.id, user.email, owner.role, owner.created_at)


def remove_coauthor(session: Session, problem: Problem, actor: User, user_id: int) -> None:
    """The author (or an admin) removes a co-author; a co-author may remove themselves. The author stays."""
    owner = repository.get_owner(session, problem.id, user_id)
    if actor.id != user_id:
        _require_manager(session, problem, actor)
    if owner is None:
        raise NotFound(f"User #{user_id} is not an owner of {problem.slug!r}.")
    if owner.role == AUTHOR:
        raise Conflict(f"The author of {problem.slug!r} cannot be removed.")
    repository.delete_owner(session, owner)
