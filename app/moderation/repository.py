"""Every query of moderation: reports, the queue's keyset pages."""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import select, update
from sqlalchemy.orm import Session

from app.accounts.models import User
from app.moderation.models import ModerationReport
from app.problems.models import Problem


def add(session: Session, report: ModerationReport) -> ModerationReport:
    session.add(report)
    session.flush()
    return report


def get(session: Session, report_id: int) -> ModerationReport | None:
    return session.get(ModerationReport, report_id)


def existing(session: Session, kind: str, target_id: int, reporter_id: int) -> ModerationReport | None:
    stmt = select(ModerationReport).where(
        ModerationReport.kind == kind,
        ModerationReport.target_id == target_id,
        ModerationReport.reporter_id == reporter_id,
    )
    return session.scalars(stmt).first()


def queue_page(
    session: Session, status: str, problem_ids: set[int] | None, before_id: int | None, limit: int
) -> Sequence[ModerationReport]:
    """``limit + 1`` reports in ``status``, newest first, on ``problem_ids`` (None: every problem)."""
    stmt = select(ModerationReport).where(ModerationReport.status == status)
    if problem_ids is not None:
        if not problem_ids:
            return []
        stmt = stmt.where(ModerationReport.problem_id.in_(problem_ids))
    if before_id is not None:
        stmt = stmt.where(ModerationReport.id < before_id)
    return session.scalars(stmt.order_by(ModerationReport.id.desc()).limit(limit + 1)).all()


def resolve_target(
    session: Session, kind: str, target_id: int, from_statuses: Sequence[str], to: str, by: int, at: object
) -> None:
    """Every report on one post in ``from_statuses`` moves to ``to`` (one action answers them all)."""
    session.execute(
        update(ModerationReport)
        .where(
            ModerationReport.kind == kind,
            ModerationReport.target_id == target_id,
            ModerationReport.status.in_(from_statuses),
        )
        .values(status=to, resolved_by_id=by, resolved_at=at)
    )


def problem(session: Session, problem_id: int) -> Problem | None:
    return session.get(Problem, problem_id)


def problem_by_slug(session: Session, slug: str) -> Problem | None:
    return session.scalars(select(Problem).where(Problem.slug == slug)).first()


def users_by_ids(session: Session, ids: set[int]) -> dict[int, User]:
    if not ids:
        return {}
    return {u.id: u for u in session.scalars(select(User).where(User.id.in_(ids)))}
