"""Authoring's own table: an instructor's working copy of a problem folder."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import JSON, ForeignKey
from sqlalchemy.orm import Mapped, mapped_column

from app.kit.db import Base, UTCDateTime, utcnow


class ProblemDraft(Base):
    """An instructor's unpublished working copy of a problem folder (at most one per problem).

    Learners never read it: they see ``Problem.current_version``. Publishing validates the draft,
    turns it into a new ``ProblemVersion`` and deletes it. ``base_version_id`` is the version the
    draft was started from, so the editor can tell when an import published something newer.
    """

    __tablename__ = "problem_drafts"

    problem_id: Mapped[int] = mapped_column(ForeignKey("problems.id", ondelete="CASCADE"), primary_key=True)
    files: Mapped[dict[str, str]] = mapped_column(JSON)
    base_version_id: Mapped[int | None] = mapped_column(
        ForeignKey("problem_versions.id", ondelete="SET NULL")
    )
    updated_by_id: Mapped[int | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow, onupdate=utcnow)
