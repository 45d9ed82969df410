"""Queries of the authoring domain: every problem (drafts included) and working copies."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from datetime import datetime

from sqlalchemy import select, tuple_
from sqlalchemy.orm import Session

from app.authoring.models import ProblemDraft
from app.problems.models import Problem, ProblemVersion

AuthoringKey = tuple[bool, str, str, int]  # (published, category, title, id): the authoring list's order
_ORDER = (Problem.published, Problem.category, Problem.title, Problem.id)


def list_all_problems(
    session: Session, *, after: AuthoringKey | None = None, limit: int | None = None
) -> Sequence[Problem]:
    """Every problem, drafts first, by category and title; keyset-paged (ix_problems_authoring)."""
    stmt = select(Problem)
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
