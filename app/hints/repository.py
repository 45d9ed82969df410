"""Every query of the hints domain."""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.hints.models import HintReveal


def get(session: Session, user_id: int, problem_id: int) -> HintReveal | None:
    stmt = select(HintReveal).where(HintReveal.user_id == user_id, HintReveal.problem_id == problem_id)
    return session.scalars(stmt).first()


def add(session: Session, reveal: HintReveal) -> HintReveal:
    session.add(reveal)
    session.flush()
    return reveal
