"""A thread as its reader sees it: the question (or "[deleted]") and one keyset page of replies.

Replies come oldest first, ``REPLY_PAGE`` at a time, over the thread's ``(thread_id, id)`` index
(the cursor format of :mod:`app.kit.paging`); the pinned reply and the marked answer head every
page and are left out of the pages' stream. The thread's page also shows where a reply was deleted
by its author (``placeholders``); the API never lists deleted replies.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy.orm import Session

from app.accounts.models import User
from app.discussion import access, repository
from app.discussion.models import REPLY, THREAD, Reply, Thread
from app.discussion.service import DELETED, Loaded, solved_by, summary, thread_page_url
from app.discussion.spoilers import render_post
from app.discussion.views import PostMarks, ReplyView, ThreadView, author_name
from app.kit.paging import decode_cursor, encode_cursor, next_url, page_of

REPLY_PAGE = 50
MAX_REPLY_PAGE = 200


@dataclass(frozen=True)
class DeletedReply:
    """Where a reply was before its author deleted it (the page says so; nothing else is shown)."""

    id: int


@dataclass(frozen=True)
class ThreadPage:
    view: ThreadView
    entries: list[ReplyView | DeletedReply]  # the page's replies in order, with deleted ones marked


def _marks(post: Thread | Reply, user: User | None, voted: set[int]) -> PostMarks:
    return PostMarks(
        mine=user is not None and post.author_id == user.id and post.deleted_at is None,
        voted=post.id in voted,
        hidden=post.hidden_at is not None,
        edited=post.edited_at is not None,
    )


def _top(session: Session, thread: Thread, user: User | None) -> list[Reply]:
    """The pinned reply, then the answer, as far as ``user`` sees them."""
    ids = list(dict.fromkeys(i for i in (thread.pinned_id, thread.answer_id) if i))
    found = repository.replies_by_ids(session, set(ids))
    return [
        found[i]
        for i in ids
        if i in found
        and found[i].thread_id == thread.id
        and access.sees_post(
            found[i].author_id, found[i].hidden_at is not None, found[i].deleted_at is not None, user
        )
    ]


def reply_views(session: Session, loaded: Loaded, replies: list[Reply], user: User | None) -> list[ReplyView]:
    thread = loaded.thread
    solved = solved_by(session, user, loaded.problem)
    authors = repository.author_names(session, {r.author_id for r in replies})
    voted = repository.voted(session, user.id, REPLY, [r.id for r in replies]) if user else set()
    return [
        ReplyView(
            id=r.id,
            thread_id=thread.id,
            author=authors.get(r.author_id) or author_name(None),
            body=r.body,
            body_html=render_post(r.body, solved=solved),
            votes=r.votes,
            answer=r.id == thread.answer_id,
            pinned=r.id == thread.pinned_id,
            created_at=r.created_at,
            edited_at=r.edited_at,
            url=f"{thread_page_url(thread.id)}#reply-{r.id}",
            marks=_marks(r, user, voted),
        )
        for r in replies
    ]


def thread_page(
    session: Session,
    loaded: Loaded,
    user: User | None,
    *,
    after: str | None = None,
    limit: int = REPLY_PAGE,
    base: str | None = None,
    placeholders: bool = False,
) -> ThreadPage:
    """The thread with one page of its replies (after the ``after`` cursor); ``base`` is the path
    the ``replies_next`` link repeats (the API's by default)."""
    thread, problem = loaded.thread, loaded.problem
    after_id = decode_cursor(after, (int,))[0] if after else None
    top = _top(session, thread, user)
    rows = repository.replies_page(
        session,
        thread.id,
        user.id if user else None,
        after_id,
        limit,
        skip={i for i in (thread.pinned_id, thread.answer_id) if i},
        placeholders=placeholders,
    )
    page = page_of(rows, limit, lambda r: (r.id,))
    shown = top + [r for r in page.items if r.deleted_at is None]
    views = {v.id: v for v in reply_views(session, loaded, shown, user)}
    entries: list[ReplyView | DeletedReply] = [views[r.id] for r in top]
    entries += [views[r.id] if r.deleted_at is None else DeletedReply(r.id) for r in page.items]
    gone = thread.deleted_at is not None
    author = repository.author_names(session, {thread.author_id}).get(thread.author_id)
    voted = repository.voted(session, user.id, THREAD, [thread.id]) if user and not gone else set()
    answered = any(r.id == thread.answer_id and r.hidden_at is None for r in top)
    solved = solved_by(session, user, problem)
    view = ThreadView(
        **summary(thread, problem.slug, author, answered).model_dump(),
        body="" if gone else thread.body,
        body_html="" if gone else render_post(thread.body, solved=solved),
        edited_at=None if gone else thread.edited_at,
        marks=_marks(thread, user, voted),
        can_mark=access.can_mark(session, user, problem, thread),
        reply_list=[e for e in entries if isinstance(e, ReplyView)],
        replies_next=next_url(base or f"/api/v1/threads/{thread.id}", {"limit": limit}, page.cursor),
    )
    return ThreadPage(view, entries)


def thread_view(
    session: Session, loaded: Loaded, user: User | None, after: str | None = None, limit: int = REPLY_PAGE
) -> ThreadView:
    """The API's thread: one page of its visible replies."""
    return thread_page(session, loaded, user, after=after, limit=limit).view


def reply_url(session: Session, thread_id: int, reply_id: int) -> str:
    """The thread's page that shows the reply: the first page, or one starting at the reply."""
    anchor = f"#reply-{reply_id}"
    if repository.replies_before(session, thread_id, reply_id, REPLY_PAGE) < REPLY_PAGE:
        return f"{thread_page_url(thread_id)}{anchor}"
    return f"{thread_page_url(thread_id)}?after={encode_cursor((reply_id - 1,))}{anchor}"


__all__ = ["DELETED", "MAX_REPLY_PAGE", "REPLY_PAGE", "DeletedReply", "ThreadPage", "thread_page"]
