"""Queries of the authoring domain: every problem (drafts included) and working copies."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.authoring.models import ProblemDraft
from app.problems.models import Problem, ProblemVersion


def list_all_problems(session: Session) -> Sequence[Problem]:
    return session.scalars(select(Problem).order_by(Problem.published, Problem.category, Problem.title)).all()


def drafts_by_problem(session: Session) -> dict[int, ProblemDraft]:
    return {d.problem_id: d for d in session.scalars(select(ProblemDraft))}


def version_numbers(session: Session) -> dict[int, int]:
    """version id -> version number, for every version that is some problem's current one."""
    stmt = select(ProblemVersion.id, ProblemVersion.number).join(
        Problem, Problem.current_version_id == ProblemVersion.id
    )
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
