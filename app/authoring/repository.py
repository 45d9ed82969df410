"""Queries of the authoring domain: every problem (drafts included) and working copies."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from datetime import datetime

from sqlalchemy import select, tuple_
from sqlalchemy.orm import Session

from app.accounts.models import User
from app.authoring.models import ProblemDraft
from app.problems.models import Problem, ProblemOwner, ProblemVersion

AuthoringKey = tuple[bool, str, str, int]  # (published, category, title, id): the authoring list's order
_ORDER = (Problem.published, Problem.category, Problem.title, Problem.id)


def list_all_problems(
    session: Session,
    *,
    owner_id: int | None = None,
    after: AuthoringKey | None = None,
    limit: int | None = None,
) -> Sequence[Problem]:
    """Every problem (or those ``owner_id`` owns), drafts first, by category and title; keyset-paged
    (ix_problems_authoring)."""
    stmt = select(Problem)
    if owner_id is not None:
        stmt = stmt.where(
            Problem.id.in_(select(ProblemOwner.problem_id).where(ProblemOwner.user_id == owner_id))
        )
    if after is not None:
        stmt = stmt.where(tuple_(*_ORDER) > after)
    stmt = stmt.order_by(*_ORDER)
    return session.scalars(stmt.limit(limit) if limit is not None else stmt).all()


def authoring_key(problem: Problem) -> AuthoringKey:
    return (problem.published, problem.category, problem.title, problem.id)


def drafts_by_problem(
    session: Session, problem_ids: Collection[int] | None = None
) -> dict[int, ProblemDraft]:
    """Working copies by problem id: every one, or those of ``problem_ids`` (a page's)."""
    stmt = select(ProblemDraft)
    if problem_ids is not None:
        stmt = stmt.where(ProblemDraft.problem_id.in_(problem_ids))
    return {d.problem_id: d for d in session.scalars(stmt)}


def version_numbers(session: Session, version_ids: Collection[int] | None = None) -> dict[int, int]:
    """version id -> version number, for every version that is some problem's current one (or of
    ``version_ids`` only)."""
    stmt = select(ProblemVersion.id, ProblemVersion.number).join(
        Problem, Problem.current_version_id == ProblemVersion.id
    )
    if version_ids is not None:
        stmt = stmt.where(ProblemVersion.id.in_(version_ids))
    return {vid: number for vid, number in session.execute(stmt)}


def get_draft(session: Session, problem_id: int) -> ProblemDraft | None:
    return session.get(ProblemDraft, problem_id)


def save_draft(session: Session, draft: ProblemDraft) -> ProblemDraft:
    session.add(draft)
    session.flush()
    return draft


def delete_draft(session: Session, problem_id: int) -> None:
    draft = session.get(ProblemDraft, problem_id)
    if draft is not None:
        session.delete(draft)
        session.flush()


def version_history(session: Session, problem_id: int) -> list[tuple[int, int, datetime]]:
    """(id, number, created_at) of every version of a problem, oldest first (files not loaded)."""
    stmt = (
        select(ProblemVersion.id, ProblemVersion.number, ProblemVersion.created_at)
        .where(ProblemVersion.problem_id == problem_id)
        .order_by(ProblemVersion.number)
    )
    return [(vid, number, created) for vid, number, created in session.execute(stmt)]


def add_owner(session: Session, owner: ProblemOwner) -> ProblemOwner:
    session.add(owner)
    session.flush()
    return owner


def get_owner(session: Session, problem_id: int, user_id: int) -> ProblemOwner | None:
    return session.get(ProblemOwner, (problem_id, user_id))


def delete_owner(session: Session, owner: ProblemOwner) -> None:
    session.delete(owner)
    session.flush()


def owners_with_users(session: Session, problem_id: int) -> list[tuple[ProblemOwner, User]]:
    """A problem's owners, the author first, then co-authors in the order they were added."""
    stmt = (
        select(ProblemOwner, User)
        .join(User, User.id == ProblemOwner.user_id)
        .where(ProblemOwner.problem_id == problem_id)
        .order_by(ProblemOwner.role, ProblemOwner.created_at, User.id)
    )
    return [(o, u) for o, u in session.execute(stmt).all()]
