"""The maintained analytics tables (migration 0026): per assignment, student and problem.

Every row is a function of one student's submissions that the course may see
(``app.courses.visibility``) on one assignment problem, so a student's rows can be recomputed
alone whenever their window changes (``AnalyticsWindow.key`` says which window they were
computed for) and the whole state rebuilt from the submissions table.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Float, ForeignKey, Index, Integer, String
from sqlalchemy.orm import Mapped, mapped_column

from app.kit.db import Base, UTCDateTime

KEY_LENGTH = 64


class AnalyticsAssignment(Base):
    """An assignment whose state was computed for its current problems (``problems_key``): when
    they change, every student's rows are regrouped (``app.analytics.state.refresh``)."""

    __tablename__ = "analytics_assignments"

    assignment_id: Mapped[int] = mapped_column(
        ForeignKey("assignments.id", ondelete="CASCADE"), primary_key=True
    )
    problems_key: Mapped[str] = mapped_column(String(KEY_LENGTH))


class AnalyticsWindow(Base):
    """A student on an assignment: the window (spans and problems) their rows were computed for.

    Also the row a verdict's writer locks first, so two verdicts of one student are applied one
    after the other (``app.analytics.state``).
    """

    __tablename__ = "analytics_windows"

    assignment_id: Mapped[int] = mapped_column(
        ForeignKey("assignments.id", ondelete="CASCADE"), primary_key=True
    )
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), primary_key=True)
    key: Mapped[str] = mapped_column(String(KEY_LENGTH))


class AnalyticsProgress(Base):
    """One student on one assignment problem (only when they did something the course sees)."""

    __tablename__ = "analytics_progress"
    __table_args__ = (Index("ix_analytics_progress_user", "user_id"),)

    assignment_id: Mapped[int] = mapped_column(
        ForeignKey("assignments.id", ondelete="CASCADE"), primary_key=True
    )
    problem_id: Mapped[int] = mapped_column(ForeignKey("problems.id", ondelete="CASCADE"), primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), primary_key=True)
    runs: Mapped[int] = mapped_column(Integer, default=0)  # Run and custom input
    attempts: Mapped[int] = mapped_column(Integer, default=0)  # judged submits
    failed: Mapped[int] = mapped_column(Integer, default=0)  # judged submits not accepted
    first_at: Mapped[datetime] = mapped_column(UTCDateTime())
    last_at: Mapped[datetime] = mapped_column(UTCDateTime())
    solved_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    attempts_to_solve: Mapped[int | None] = mapped_column(Integer)
    minutes_to_solve: Mapped[float | None] = mapped_column(Float)  # from first_at to solved_at
    best_passed: Mapped[int] = mapped_column(Integer, default=0)
    best_total: Mapped[int] = mapped_column(Integer, default=0)
    best_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    since_best: Mapped[int] = mapped_column(Integer, default=0)  # attempts after the best one


class AnalyticsFailure(Base):
    """How many of a student's failed submits failed one case (``hidden:``/``public:`` + its name)
    or broke one rule (``rule:`` + its id)."""

    __tablename__ = "analytics_failures"
    __table_args__ = (Index("ix_analytics_failures_user", "user_id"),)

    assignment_id: Mapped[int] = mapped_column(
        ForeignKey("assignments.id", ondelete="CASCADE"), primary_key=True
    )
    problem_id: Mapped[int] = mapped_column(ForeignKey("problems.id", ondelete="CASCADE"), primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), primary_key=True)
    key: Mapped[str] = mapped_column(String(240), primary_key=True)
    count: Mapped[int] = mapped_column(Integer, default=0)


class AnalyticsKind(Base):
    """How many of a student's failed submits in one hour (UTC) failed in one way (``rules.KINDS``)."""

    __tablename__ = "analytics_kinds"
    __table_args__ = (Index("ix_analytics_kinds_user", "user_id"),)

    assignment_id: Mapped[int] = mapped_column(
        ForeignKey("assignments.id", ondelete="CASCADE"), primary_key=True
    )
    problem_id: Mapped[int] = mapped_column(ForeignKey("problems.id", ondelete="CASCADE"), primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), primary_key=True)
    hour: Mapped[datetime] = mapped_column(UTCDateTime(), primary_key=True)
    kind: Mapped[str] = mapped_column(String(20), primary_key=True)
    count: Mapped[int] = mapped_column(Integer, default=0)


class AnalyticsCaseTotal(Base):
    """The class's figures of one failure key on one assignment problem: the sum of its students'
    :class:`AnalyticsFailure` rows (students who left included: their work stays the course's),
    kept with them, so a page reads a few rows instead of grouping every student's."""

    __tablename__ = "analytics_case_totals"

    assignment_id: Mapped[int] = mapped_column(
        ForeignKey("assignments.id", ondelete="CASCADE"), primary_key=True
    )
    problem_id: Mapped[int] = mapped_column(ForeignKey("problems.id", ondelete="CASCADE"), primary_key=True)
    key: Mapped[str] = mapped_column(String(240), primary_key=True)
    students: Mapped[int] = mapped_column(Integer, default=0)
    attempts: Mapped[int] = mapped_column(Integer, default=0)


class AnalyticsKindTotal(Base):
    """The class's failed Submits of one kind in one hour on one assignment problem: the sum of
    its students' :class:`AnalyticsKind` rows, kept with them."""

    __tablename__ = "analytics_kind_totals"

    assignment_id: Mapped[int] = mapped_column(
        ForeignKey("assignments.id", ondelete="CASCADE"), primary_key=True
    )
    problem_id: Mapped[int] = mapped_column(ForeignKey("problems.id", ondelete="CASCADE"), primary_key=True)
    hour: Mapped[datetime] = mapped_column(UTCDateTime(), primary_key=True)
    kind: Mapped[str] = mapped_column(String(20), primary_key=True)
    count: Mapped[int] = mapped_column(Integer, default=0)
