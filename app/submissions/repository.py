from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import CursorResult, select, update
from sqlalchemy.orm import Session

from app.submissions.models import FINISHED, QUEUED, RUNNING, Submission


def add(session: Session, submission: Submission) -> Submission:
    session.add(submission)
    session.flush()
    return submission


def get(session: Session, submission_id: int) -> Submission | None:
    return session.get(Submission, submission_id)


def list_for(session: Session, user_id: int, problem_id: int, limit: int = 20) -> Sequence[Submission]:
    stmt = (
        select(Submission)
        .where(Submission.user_id == user_id, Submission.problem_id == problem_id)
        .order_by(Submission.created_at.desc(), Submission.id.desc())
        .limit(limit)
    )
    return session.scalars(stmt).all()


def unfinished_ids(session: Session) -> list[int]:
    stmt = select(Submission.id).where(Submission.status.in_((QUEUED, RUNNING))).order_by(Submission.id)
    return list(session.scalars(stmt))


def requeue_running(session: Session) -> None:
    session.execute(
        update(Submission).where(Submission.status == RUNNING).values(status=QUEUED, started_at=None)
    )


def mark_running(session: Session, submission_id: int, now: datetime) -> bool:
    """queued/running -> running; False if the submission is finished (or gone)."""
    result: CursorResult[Any] = session.execute(  # type: ignore[assignment]
        update(Submission)
        .where(Submission.id == submission_id, Submission.status != FINISHED)
        .values(status=RUNNING, started_at=now)
    )
    return result.rowcount == 1


def finish(session: Session, submission_id: int, values: dict[str, Any]) -> bool:
    """Record the final verdict once: a finished submission is never overwritten."""
    result: CursorResult[Any] = session.execute(  # type: ignore[assignment]
        update(Submission)
        .where(Submission.id == submission_id, Submission.status != FINISHED)
        .values(status=FINISHED, **values)
        .execution_options(synchronize_session=False)
    )
    return result.rowcount == 1
