"""A problem's discussion: threads, their replies, the revisions an edit keeps, and votes.

Counts that listings show (``votes``, ``reply_count``) are maintained in the transaction that
changes them, never counted in a listing. ``hidden_at`` is a moderator's (``app.moderation``),
``deleted_at`` the author's; either takes a post out of every listing, page, count and API answer —
except a thread its author deleted while it had replies: it stays, as "[deleted]", with its replies.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import CheckConstraint, ForeignKey, Index, Integer, String, Text, UniqueConstraint, text
from sqlalchemy.orm import Mapped, mapped_column

from app.kit.db import Base, UTCDateTime, utcnow

THREAD = "thread"
REPLY = "reply"
KINDS = (THREAD, REPLY)
# A listed thread: not hidden, and not deleted — or deleted by its author while it has visible
# replies (shown as "[deleted]", its replies kept; it leaves the list with its last reply).
LISTED = "hidden_at IS NULL AND (deleted_at IS NULL OR reply_count > 0)"


class Thread(Base):
    __tablename__ = "discussion_threads"
    # The listings' and the count's indexes hold listed threads only (hidden and deleted ones are
    # few and never listed), so a page or a count reads the index alone, however many there are.
    __table_args__ = (
        Index(
            "ix_discussion_threads_visible_new",
            "problem_id",
            "id",
            sqlite_where=text(LISTED),
            postgresql_where=text(LISTED),
        ),
        Index(
            "ix_discussion_threads_visible_votes",
            "problem_id",
            "votes",
            "id",
            sqlite_where=text(LISTED),
            postgresql_where=text(LISTED),
        ),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    problem_id: Mapped[int] = mapped_column(ForeignKey("problems.id", ondelete="CASCADE"))
    author_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    title: Mapped[str] = mapped_column(String(200))
    body: Mapped[str] = mapped_column(Text)
    votes: Mapped[int] = mapped_column(Integer, default=0)
    reply_count: Mapped[int] = mapped_column(Integer, default=0)
    # The reply that answered the question, and the reply pinned first (plain ids: a reply belongs
    # to its thread, checked by the service).
    answer_id: Mapped[int | None] = mapped_column(Integer)
    pinned_id: Mapped[int | None] = mapped_column(Integer)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    edited_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    hidden_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    deleted_at: Mapped[datetime | None] = mapped_column(UTCDateTime())


class Reply(Base):
    __tablename__ = "discussion_replies"
    __table_args__ = (Index("ix_discussion_replies_thread_id", "thread_id", "id"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    thread_id: Mapped[int] = mapped_column(ForeignKey("discussion_threads.id", ondelete="CASCADE"))
    author_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    body: Mapped[str] = mapped_column(Text)
    votes: Mapped[int] = mapped_column(Integer, default=0)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    edited_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    hidden_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    deleted_at: Mapped[datetime | None] = mapped_column(UTCDateTime())


class Revision(Base):
    """The text a post had before an edit (the current text is on the post itself)."""

    __tablename__ = "discussion_revisions"
    __table_args__ = (
        CheckConstraint("kind IN ('thread', 'reply')", name="kind"),
        Index("ix_discussion_revisions_post", "kind", "post_id", "id"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    kind: Mapped[str] = mapped_column(String(10))
    post_id: Mapped[int] = mapped_column(Integer)
    title: Mapped[str | None] = mapped_column(String(200))
    body: Mapped[str] = mapped_column(Text)
    written_at: Mapped[datetime] = mapped_column(UTCDateTime())


class Vote(Base):
    """One up-vote per user per post (see docs/community.md for why there is no down-vote)."""

    __tablename__ = "discussion_votes"
    __table_args__ = (
        CheckConstraint("kind IN ('thread', 'reply')", name="kind"),
        UniqueConstraint("kind", "post_id", "user_id", name="uq_discussion_votes_one"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    kind: Mapped[str] = mapped_column(String(10))
    post_id: Mapped[int] = mapped_column(Integer)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
