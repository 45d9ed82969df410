"""The one view of each discussion resource, served by ``/api/v1`` and rendered by the pages."""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel, Field

from app.accounts.models import STAFF_ROLES, User


def author_name(user: User | None) -> str:
    """What readers see of a post's author: no email, only a role and a number."""
    if user is None:
        return "A former user"
    return role_name(user.id, user.role)


def role_name(user_id: int, role: str) -> str:
    """:func:`author_name` from the two columns it needs (listings read only those)."""
    shown = "Admin" if role == "admin" else "Instructor" if role in STAFF_ROLES else "Learner"
    return f"{shown} #{user_id}"


class PostMarks(BaseModel):
    """What the reader may do with a post, and its moderation state as the reader may know it."""

    mine: bool = Field(description="You wrote it (you may edit and delete it)")
    voted: bool = Field(description="You voted for it")
    hidden: bool = Field(description="Hidden by a moderator (only its author still sees it)")
    edited: bool = Field(description="Edited since it was posted (see its history)")


class ReplyView(BaseModel):
    id: int
    thread_id: int
    author: str
    body: str = Field(description="The Markdown source")
    body_html: str = Field(description="Rendered and sanitised; spoiler code folded unless you solved it")
    votes: int
    answer: bool = Field(description="Marked as the thread's answer")
    pinned: bool = Field(description="Pinned first by the thread's author or an instructor")
    created_at: datetime
    edited_at: datetime | None
    url: str
    marks: PostMarks


class ThreadSummary(BaseModel):
    id: int
    problem: str = Field(description="The problem's slug")
    title: str = Field(description='"[deleted]" once its author deleted the question (its replies stay)')
    author: str
    deleted: bool = Field(description="Its author deleted the question while it had replies; they stay")
    votes: int
    replies: int = Field(description="Visible replies")
    answered: bool
    created_at: datetime
    url: str = Field(description="The thread in the API")
    page: str = Field(description="The thread's page")


class ThreadList(BaseModel):
    items: list[ThreadSummary]
    next: str | None = Field(description="The next page (keyset cursor), or null on the last")


class ThreadView(ThreadSummary):
    body: str
    body_html: str
    edited_at: datetime | None
    marks: PostMarks
    can_mark: bool = Field(description="You may mark the answer and pin a reply")
    reply_list: list[ReplyView] = Field(
        description="One page of the visible replies, oldest first; the pinned reply and the answer "
        "head every page"
    )
    replies_next: str | None = Field(description="The next page of replies (keyset cursor), or null")


class RevisionView(BaseModel):
    title: str | None
    body: str
    body_html: str
    written_at: datetime
    current: bool


class HistoryView(BaseModel):
    kind: str
    id: int
    revisions: list[RevisionView] = Field(description="Oldest first; the last is the current text")
