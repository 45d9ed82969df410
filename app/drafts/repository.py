"""Every query of the drafts domain."""

from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy import delete, func, select
from sqlalchemy.orm import Session

from app.drafts.models import CodeDraft
from app.submissions.models import Submission


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


# --- progress over time (reads the learner's own submissions) -------------------------------------


def first_solves(session: Session, user_id: int) -> list[datetime]:
    """When each problem the user solved was first accepted (submit mode), oldest first."""
    stmt = (
        select(func.min(Submission.created_at))
        .where(Submission.user_id == user_id, Submission.mode == "submit", Submission.verdict == "accepted")
        .group_by(Submission.problem_id)
    )
    return sorted(_aware(value) for value in session.scalars(stmt) if value is not None)


def activity_since(session: Session, user_id: int, since: datetime) -> list[tuple[datetime, str | None]]:
    """``(created_at, verdict)`` of every run and submit of the user since ``since``."""
    stmt = select(Submission.created_at, Submission.verdict).where(
        Submission.user_id == user_id, Submission.created_at >= since
    )
    return [(_aware(at), verdict) for at, verdict in session.execute(stmt)]


def _aware(value: datetime | str) -> datetime:
    """Aggregates over timestamps come back as naive datetimes or text on SQLite; they are UTC."""
    if isinstance(value, str):
        value = datetime.fromisoformat(value)
    return value if value.tzinfo is not None else value.replace(tzinfo=UTC)
