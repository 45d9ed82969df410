"""Every query of the drafts domain."""

from __future__ import annotations

from sqlalchemy import delete, select
from sqlalchemy.orm import Session

from app.drafts.models import CodeDraft


def get(session: Session, user_id: int, problem_id: int) -> CodeDraft | None:
    stmt = select(CodeDraft).where(CodeDraft.user_id == user_id, CodeDraft.problem_id == problem_id)
    return session.scalars(stmt).first()


def add(session: Session, draft: CodeDraft) -> CodeDraft:
    session.add(draft)
    session.flush()
    return draft


def remove(session: Session, user_id: int, problem_id: int) -> int:
    result = session.execute(
        delete(CodeDraft).where(CodeDraft.user_id == user_id, CodeDraft.problem_id == problem_id)
    )
    return int(getattr(result, "rowcount", 0) or 0)
