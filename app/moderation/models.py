"""A report that a post (a thread, a reply, a solution, ...) breaks the rules, and what was done."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import CheckConstraint, ForeignKey, Index, Integer, String, Text, UniqueConstraint, text
from sqlalchemy.orm import Mapped, mapped_column

from app.kit.db import Base, UTCDateTime, utcnow

OPEN = "open"
HIDDEN = "hidden"
DISMISSED = "dismissed"
STATUSES = (OPEN, HIDDEN, DISMISSED)
OPEN_ONLY = "status = 'open'"


class ModerationReport(Base):
    """One user's report on one post (a user reports a post once); ``status`` is the queue's state."""

    __tablename__ = "moderation_reports"
    __table_args__ = (
        CheckConstraint("status IN ('open', 'hidden', 'dismissed')", name="status"),
        UniqueConstraint("kind", "target_id", "reporter_id", name="uq_moderation_reports_once"),
        # The queue's pages: the open reports newest first (a partial index of the open ones only:
        # with (status, id) alone PostgreSQL walked the primary key backwards through every answered
        # report, EXPLAIN ANALYZE in bench/discussion_listing.py), another status's, and an
        # instructor's (their problems).
        Index(
            "ix_moderation_reports_open", "id", sqlite_where=text(OPEN_ONLY), postgresql_where=text(OPEN_ONLY)
        ),
        Index("ix_moderation_reports_status", "status", "id"),
        Index("ix_moderation_reports_problem_status", "problem_id", "status", "id"),
        Index("ix_moderation_reports_target", "kind", "target_id"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    kind: Mapped[str] = mapped_column(String(20))
    target_id: Mapped[int] = mapped_column(Integer)
    problem_id: Mapped[int] = mapped_column(ForeignKey("problems.id", ondelete="CASCADE"), index=True)
    reporter_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    reason: Mapped[str] = mapped_column(Text)
    status: Mapped[str] = mapped_column(String(10), default=OPEN)
    # Who acted, as a log: a plain id.
    resolved_by_id: Mapped[int | None] = mapped_column(Integer)
    resolved_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
