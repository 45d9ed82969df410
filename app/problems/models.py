from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import (
    JSON,
    Boolean,
    CheckConstraint,
    ForeignKey,
    Index,
    Integer,
    String,
    Text,
    UniqueConstraint,
)
from sqlalchemy.orm import Mapped, mapped_column, relationship

from app.kit.db import Base, UTCDateTime, utcnow


class Track(Base):
    """A learning path (``problems/tracks.toml``); a problem belongs to the track its category names."""

    __tablename__ = "tracks"

    id: Mapped[int] = mapped_column(primary_key=True)
    slug: Mapped[str] = mapped_column(String(60), unique=True)
    title: Mapped[str] = mapped_column(String(100), unique=True)
    position: Mapped[int] = mapped_column(Integer, default=0)
    description: Mapped[str] = mapped_column(Text, default="")


class Problem(Base):
    """A problem's identity and its current, listed metadata (copied from the current version)."""

    __tablename__ = "problems"
    __table_args__ = (
        CheckConstraint("difficulty IN ('easy', 'medium', 'hard')", name="difficulty"),
        # The authoring list's keyset order (migration 0014).
        Index("ix_problems_authoring", "published", "category", "title", "id"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    slug: Mapped[str] = mapped_column(String(80), unique=True)
    title: Mapped[str] = mapped_column(String(200))
    difficulty: Mapped[str] = mapped_column(String(10))
    category: Mapped[str] = mapped_column(String(100), index=True)
    premium: Mapped[bool] = mapped_column(Boolean, default=False)
    published: Mapped[bool] = mapped_column(Boolean, default=True)
    track_id: Mapped[int | None] = mapped_column(ForeignKey("tracks.id", ondelete="SET NULL"), index=True)
    position: Mapped[int] = mapped_column(Integer, default=0)  # ``order`` in problem.toml: place in its track
    # Visible only inside ``course_id``'s course until an admin publishes it site-wide (``visibility.py``).
    course_only: Mapped[bool] = mapped_column(Boolean, default=False)
    # A foreign key to courses.id (ON DELETE SET NULL) in the database (migration 0018), not declared
    # here: this domain sits below app.courses and loads without its tables (the bank importer).
    course_id: Mapped[int | None] = mapped_column(Integer, index=True)
    current_version_id: Mapped[int | None] = mapped_column(
        ForeignKey("problem_versions.id", use_alter=True, ondelete="SET NULL")
    )
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow, onupdate=utcnow)

    current_version: Mapped[ProblemVersion | None] = relationship(
        foreign_keys=[current_version_id], post_update=True, lazy="raise"
    )
    tags: Mapped[list[ProblemTag]] = relationship(
        cascade="all, delete-orphan", lazy="selectin", order_by="ProblemTag.position"
    )

    @property
    def tag_names(self) -> list[str]:
        return [t.tag for t in self.tags]


AUTHOR = "author"
COAUTHOR = "coauthor"


class ProblemOwner(Base):
    """Who may edit a problem: its author and the co-authors they add (migration 0018).

    A problem without owners (the shipped bank) is edited by admins only.
    """

    __tablename__ = "problem_owners"
    __table_args__ = (CheckConstraint("role IN ('author', 'coauthor')", name="role"),)

    problem_id: Mapped[int] = mapped_column(ForeignKey("problems.id", ondelete="CASCADE"), primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), primary_key=True, index=True)
    role: Mapped[str] = mapped_column(String(10))
    added_by_id: Mapped[int | None] = mapped_column(Integer)  # a log: a plain id
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)


class ProblemTag(Base):
    __tablename__ = "problem_tags"

    problem_id: Mapped[int] = mapped_column(ForeignKey("problems.id", ondelete="CASCADE"), primary_key=True)
    tag: Mapped[str] = mapped_column(String(60), primary_key=True, index=True)
    position: Mapped[int] = mapped_column(Integer, default=0)


class ProblemVersion(Base):
    """An immutable snapshot of a problem folder; submissions point at the version they ran."""

    __tablename__ = "problem_versions"
    __table_args__ = (UniqueConstraint("problem_id", "number"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    problem_id: Mapped[int] = mapped_column(ForeignKey("problems.id", ondelete="CASCADE"), index=True)
    number: Mapped[int] = mapped_column(Integer)
    content_hash: Mapped[str] = mapped_column(String(64))
    files: Mapped[dict[str, str]] = mapped_column(JSON)
    expectations: Mapped[dict[str, Any]] = mapped_column(JSON)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
