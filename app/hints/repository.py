"""Every query of the hints domain."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import select, update
from sqlalchemy.orm import Session

from app.hints.models import HintReveal


def get(session: Session, user_id: int, problem_id: int) -> HintReveal | None:
    stmt = select(HintReveal).where(HintReveal.user_id == user_id, HintReveal.problem_id == problem_id)
    return session.scalars(stmt).first()


def add(session: Session, reveal: HintReveal) -> HintReveal:
    session.add(reveal)
    session.flush()
    return reveal


def reveal_one_more(session: Session, user_id: int, problem_id: int, total: int, now: datetime) -> None:
    """One more hint revealed, never more than ``total``: one atomic UPDATE, so two clicks count twice."""
    session.execute(
        update(HintReveal)
        .where(
            HintReveal.user_id == user_id, HintReveal.problem_id == problem_id, HintReveal.revealed < total
        )
        .values(revealed=HintReveal.revealed + 1, updated_at=now)
    )  # the ORM's default synchronisation updates a loaded row too
