from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import (
    JSON,
    CheckConstraint,
    Float,
    ForeignKey,
    Index,
    Integer,
    String,
    Text,
    UniqueConstraint,
)
from sqlalchemy.orm import Mapped, mapped_column

from app.kit.db import Base, UTCDateTime, utcnow

QUEUED = "queued"
RUNNING = "running"
FINISHED = "finished"
STATUSES = (QUEUED, RUNNING, FINISHED)
CUSTOM = "custom"
MODES = ("run", "submit", CUSTOM)  # custom: the learner's own input (runner.format.custom)
# Re-judged copies that course regrades make carry an idempotency key with this prefix: they are
# grading records, not practice, so progress and acceptance counts leave them out.
COPY_KEY_PREFIX = "regrade-"


class Submission(Base):
    """One run or submit of a learner's code, stored before it is judged."""

    __tablename__ = "submissions"
    __table_args__ = (
        CheckConstraint("status IN ('queued', 'running', 'finished')", name="status"),
        CheckConstraint("mode IN ('run', 'submit', 'custom')", name="mode"),
        Index("ix_submissions_user_problem_created", "user_id", "problem_id", "created_at"),
        Index("ix_submissions_status", "status"),
        # Keyset pagination of a learner's submissions, newest first (optionally for one problem).
        Index("ix_submissions_user_id_desc", "user_id", "id"),
        Index("ix_submissions_user_problem_id", "user_id", "problem_id", "id"),
        # A course drill-down: a student's attempts on a course's problems, newest first (0015).
        Index("ix_submissions_user_created", "user_id", "created_at", "id"),
        # A retried API POST with the same Idempotency-Key finds the first submission.
        UniqueConstraint("user_id", "idempotency_key", name="uq_submissions_user_idempotency_key"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    problem_id: Mapped[int] = mapped_column(ForeignKey("problems.id", ondelete="CASCADE"))
    problem_version_id: Mapped[int] = mapped_column(ForeignKey("problem_versions.id", ondelete="RESTRICT"))
    mode: Mapped[str] = mapped_column(String(10))
    code: Mapped[str] = mapped_column(Text)
    status: Mapped[str] = mapped_column(String(10), default=QUEUED)
    verdict: Mapped[str | None] = mapped_column(String(40))
    passed: Mapped[int | None] = mapped_column(Integer)
    total: Mapped[int | None] = mapped_column(Integer)
    cases: Mapped[list[dict[str, Any]] | None] = mapped_column(JSON)
    message: Mapped[str | None] = mapped_column(Text)
    time_ms: Mapped[float | None] = mapped_column(Float)
    runtime: Mapped[dict[str, str] | None] = mapped_column(JSON)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    started_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    finished_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    idempotency_key: Mapped[str | None] = mapped_column(String(100))
    # Custom runs only: the arguments the learner gave, as data (runner.format.inputs format).
    custom_input: Mapped[dict[str, Any] | None] = mapped_column(JSON)

    @property
    def is_copy(self) -> bool:
        """A course regrade's re-judged copy (see :data:`COPY_KEY_PREFIX`), not the learner's practice."""
        return (self.idempotency_key or "").startswith(COPY_KEY_PREFIX)


class SubmissionGate(Base):
    """One row per user that every new submission of theirs locks first (``app.submissions.limit``).

    The row itself holds no count: taking it (an upsert, in the submission's own transaction)
    makes a user's concurrent submissions queue one behind the other, so each counts the ones
    committed before it and the per-minute limit cannot be overrun by a burst.
    """

    __tablename__ = "submission_gates"

    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), primary_key=True)
    last_at: Mapped[datetime] = mapped_column(UTCDateTime())
