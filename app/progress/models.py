"""The maintained progress tables (migration 0011)."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import ForeignKey, Index, Integer
from sqlalchemy.orm import Mapped, mapped_column

from app.kit.db import Base, UTCDateTime


class LearnerProblem(Base):
    """One learner on one problem: how often they ran or submitted, and when they first solved it."""

    __tablename__ = "learner_problems"
    __table_args__ = (Index("ix_learner_problems_user_solved", "user_id", "solved_at"),)

    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), primary_key=True)
    problem_id: Mapped[int] = mapped_column(
        ForeignKey("problems.id", ondelete="CASCADE"), primary_key=True, index=True
    )
    submissions: Mapped[int] = mapped_column(Integer, default=0)
    # created_at of the learner's first accepted submit: "solved" (app.progress.rules).
    solved_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    last_submitted_at: Mapped[datetime] = mapped_column(UTCDateTime())


class ProblemStats(Base):
    """A problem's judged submit-mode submissions and how many were accepted (its acceptance rate)."""

    __tablename__ = "problem_stats"

    problem_id: Mapped[int] = mapped_column(ForeignKey("problems.id", ondelete="CASCADE"), primary_key=True)
    judged: Mapped[int] = mapped_column(Integer, default=0)
    accepted: Mapped[int] = mapped_column(Integer, default=0)
