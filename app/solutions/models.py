"""The solutions tables (migration 0023).

Counts shown in listings (``votes``, ``comments``) are maintained in the transaction that changes
them, so a listing never counts rows. ``hidden_at`` (a moderator's) and ``deleted_at`` (the
author's) keep the row for the moderation log; both make it vanish from every reader but its author
(who sees a hidden post marked so) — a deleted one is gone for the author too.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Boolean, ForeignKey, Index, Integer, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from app.kit.db import Base, UTCDateTime, utcnow


class Solution(Base):
    """A learner's accepted submission, published with a write-up and the approach tags they chose.

    ``code`` is a copy taken at publication: the solution stays as published whatever happens to
    the submission afterwards (re-judging, deletion of old runs).
    """

    __tablename__ = "solutions"
    __table_args__ = (
        UniqueConstraint("submission_id", name="uq_solutions_submission_id"),
        Index("ix_solutions_problem_votes", "problem_id", "votes", "id"),
        Index("ix_solutions_problem_id", "problem_id", "id"),
        Index("ix_solutions_author_id", "author_id", "id"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    problem_id: Mapped[int] = mapped_column(ForeignKey("problems.id", ondelete="CASCADE"))
    author_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    submission_id: Mapped[int | None] = mapped_column(ForeignKey("submissions.id", ondelete="SET NULL"))
    title: Mapped[str] = mapped_column(String(200))
    code: Mapped[str] = mapped_column(Text)
    write_up: Mapped[str] = mapped_column(Text)
    votes: Mapped[int] = mapped_column(Integer, default=0)
    comments: Mapped[int] = mapped_column(Integer, default=0)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    hidden_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    deleted_at: Mapped[datetime | None] = mapped_column(UTCDateTime())


class SolutionTag(Base):
    """One approach tag of a solution; ``problem_id`` is repeated so a tag filter is one index, and
    ``shown`` (false while the solution is hidden or deleted) so the tag counts read this table only."""

    __tablename__ = "solution_tags"
    __table_args__ = (
        Index("ix_solution_tags_problem_tag", "problem_id", "tag", "solution_id"),
        Index("ix_solution_tags_problem_shown", "problem_id", "shown", "tag"),
    )

    solution_id: Mapped[int] = mapped_column(ForeignKey("solutions.id", ondelete="CASCADE"), primary_key=True)
    tag: Mapped[str] = mapped_column(String(40), primary_key=True)
    problem_id: Mapped[int] = mapped_column(ForeignKey("problems.id", ondelete="CASCADE"))
    shown: Mapped[bool] = mapped_column(Boolean, default=True)


class SolutionVote(Base):
    """One up-vote of one user on one solution (the primary key makes it one)."""

    __tablename__ = "solution_votes"

    solution_id: Mapped[int] = mapped_column(ForeignKey("solutions.id", ondelete="CASCADE"), primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), primary_key=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)


class SolutionComment(Base):
    __tablename__ = "solution_comments"
    __table_args__ = (Index("ix_solution_comments_solution_id", "solution_id", "id"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    solution_id: Mapped[int] = mapped_column(ForeignKey("solutions.id", ondelete="CASCADE"))
    author_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    body: Mapped[str] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    hidden_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    deleted_at: Mapped[datetime | None] = mapped_column(UTCDateTime())


class GiveUp(Base):
    """ "Give up and show solutions": when a learner chose to see a problem's solutions unsolved.

    Kept for instructors' analytics (:func:`app.solutions.service.give_up_counts`); one per learner
    and problem (giving up again changes nothing).
    """

    __tablename__ = "solution_give_ups"
    __table_args__ = (Index("ix_solution_give_ups_problem_id", "problem_id"),)

    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), primary_key=True)
    problem_id: Mapped[int] = mapped_column(ForeignKey("problems.id", ondelete="CASCADE"), primary_key=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime())


class SolutionHold(Base):
    """An instructor's choice on an assignment: its problems' solutions (and editorial) stay closed
    to the course's students until their deadline (the assignment's close, extension applied)."""

    __tablename__ = "solution_holds"

    assignment_id: Mapped[int] = mapped_column(
        ForeignKey("assignments.id", ondelete="CASCADE"), primary_key=True
    )
    set_by_id: Mapped[int | None] = mapped_column(Integer)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)


class HiddenEditorial(Base):
    """A problem's editorial hidden by a moderator (the editorial itself lives in the version's
    files, ``editorial.md``)."""

    __tablename__ = "hidden_editorials"

    problem_id: Mapped[int] = mapped_column(ForeignKey("problems.id", ondelete="CASCADE"), primary_key=True)
    hidden_at: Mapped[datetime] = mapped_column(UTCDateTime())
