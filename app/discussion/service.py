"""Reading a discussion: a problem's threads (keyset pages), a thread with its replies, edit history.

Every read goes through the problem's gate (:mod:`app.discussion.access`); hidden and deleted posts
are left out of every listing, count and answer, except that a hidden post's author still sees it,
marked. Spoiler code is folded unless the reader solved the problem (``app.progress``, the one
home of "solved").
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from urllib.parse import quote

from sqlalchemy.orm import Session

from app.accounts.models import User
from app.discussion import access, repository
from app.discussion.models import REPLY, THREAD, Reply, Thread
from app.discussion.spoilers import render_post
from app.discussion.views import (
    HistoryView,
    PostMarks,
    ReplyView,
    RevisionView,
    ThreadList,
    ThreadSummary,
    ThreadView,
    author_name,
)
from app.kit.errors import InvalidInput, NotFound
from app.kit.paging import decode_cursor, next_url, page_of
from app.problems.models import Problem
from app.progress import repository as progress

PAGE_SIZE = 30
MAX_PAGE_SIZE = 100


def thread_page_url(thread_id: int) -> str:
    return f"/discussion/threads/{thread_id}"


def _solved(session: Session, user: User | None, problem: Problem) -> bool:
    return user is not None and progress.is_solved(session, user.id, problem.id)


def _summary(thread: Thread, slug: str, author: User | None, answered: bool) -> ThreadSummary:
    return ThreadSummary(
        id=thread.id,
        problem=slug,
        title=thread.title,
        author=author_name(author),
        votes=thread.votes,
        replies=thread.reply_count,
        answered=answered,
        created_at=thread.created_at,
        url=f"/api/v1/threads/{thread.id}",
        page=thread_page_url(thread.id),
    )


def list_threads(
    session: Session,
    slug: str,
    user: User | None,
    now: datetime,
    *,
    sort: str = repository.NEWEST,
    after: str | None = None,
    limit: int = PAGE_SIZE,
    base: str = "",
) -> ThreadList:
    """One page of a problem's visible threads; ``base`` is the path the ``next`` link repeats."""
    if sort not in repository.SORTS:
        raise InvalidInput(f"sort must be one of {', '.join(repository.SORTS)}.")
    problem = access.problem_by_slug(session, slug, user, now)
    key = None
    if after:
        key = decode_cursor(after, (int, int) if sort == repository.VOTES else (int,))
    rows = repository.threads_page(session, problem.id, sort, key, limit)
    page = page_of(
        rows, limit, (lambda t: (t.votes, t.id)) if sort == repository.VOTES else (lambda t: (t.id,))
    )
    authors = repository.users_by_ids(session, {t.author_id for t in page.items})
    answered = repository.visible_reply_ids(session, {t.answer_id for t in page.items if t.answer_id})
    items = [_summary(t, problem.slug, authors.get(t.author_id), t.answer_id in answered) for t in page.items]
    path = base or f"/api/v1/problems/{quote(problem.slug)}/threads"
    return ThreadList(items=items, next=next_url(path, {"sort": sort, "limit": limit}, page.cursor))


def count_threads(session: Session, problem: Problem) -> int:
    """Visible threads of a problem the caller already passed the gate of (the problem page's link)."""
    return repository.count_threads(session, problem.id)


@dataclass(frozen=True)
class Loaded:
    thread: Thread
    problem: Problem


def load_thread(session: Session, thread_id: int, user: User | None, now: datetime) -> Loaded:
    """The thread if ``user`` may read it: 404 when missing, deleted, hidden from them or behind a
    course's wall; 403 behind Premium."""
    thread = repository.get_thread(session, thread_id)
    missing = f"thread #{thread_id}"
    if thread is None:
        raise NotFound(f"There is no {missing}.")
    problem = access.problem_of(session, thread.problem_id, user, now, missing)
    if not access.sees_post(
        thread.author_id, thread.hidden_at is not None, thread.deleted_at is not None, user
    ):
        raise NotFound(f"There is no {missing}.")
    return Loaded(thread, problem)


def load_reply(session: Session, reply_id: int, user: User | None, now: datetime) -> tuple[Reply, Loaded]:
    reply = repository.get_reply(session, reply_id)
    if reply is None:
        raise NotFound(f"There is no reply #{reply_id}.")
    try:
        loaded = load_thread(session, reply.thread_id, user, now)
    except NotFound:
        raise NotFound(f"There is no reply #{reply_id}.") from None
    if not access.sees_post(reply.author_id, reply.hidden_at is not None, reply.deleted_at is not None, user):
        raise NotFound(f"There is no reply #{reply_id}.")
    return reply, loaded


def _marks(post: Thread | Reply, user: User | None, voted: set[int]) -> PostMarks:
    return PostMarks(
        mine=user is not None and post.author_id == user.id,
        voted=post.id in voted,
        hidden=post.hidden_at is not None,
        edited=post.edited_at is not None,
    )


def visible_replies(session: Session, thread: Thread, user: User | None) -> list[Reply]:
    """The replies ``user`` sees, the pinned one first, then oldest first."""
    shown = [
        r
        for r in repository.replies_of(session, thread.id)
        if access.sees_post(r.author_id, r.hidden_at is not None, r.deleted_at is not None, user)
    ]
    return sorted(shown, key=lambda r: (r.id != thread.pinned_id, r.id))


def deleted_replies(session: Session, thread: Thread) -> int:
    """How many replies their authors deleted (the thread page says so where they were; never the API)."""
    return sum(
        1
        for r in repository.replies_of(session, thread.id)
        if r.deleted_at is not None and r.hidden_at is None
    )


def thread_view(session: Session, loaded: Loaded, user: User | None) -> ThreadView:
    thread, problem = loaded.thread, loaded.problem
    replies = visible_replies(session, thread, user)
    solved = _solved(session, user, problem)
    authors = repository.users_by_ids(session, {thread.author_id} | {r.author_id for r in replies})
    voted_threads = repository.voted(session, user.id, THREAD, [thread.id]) if user else set()
    voted_replies = repository.voted(session, user.id, REPLY, [r.id for r in replies]) if user else set()
    visible_ids = {r.id for r in replies if r.hidden_at is None}
    reply_views = [
        ReplyView(
            id=r.id,
            thread_id=thread.id,
            author=author_name(authors.get(r.author_id)),
            body=r.body,
            body_html=render_post(r.body, solved=solved),
            votes=r.votes,
            answer=r.id == thread.answer_id,
            pinned=r.id == thread.pinned_id,
            created_at=r.created_at,
            edited_at=r.edited_at,
            url=f"{thread_page_url(thread.id)}#reply-{r.id}",
            marks=_marks(r, user, voted_replies),
        )
        for r in replies
    ]
    summary = _summary(thread, problem.slug, authors.get(thread.author_id), thread.answer_id in visible_ids)
    return ThreadView(
        **summary.model_dump(),
        body=thread.body,
        body_html=render_post(thread.body, solved=solved),
        edited_at=thread.edited_at,
        marks=_marks(thread, user, voted_threads),
        can_mark=access.can_mark(session, user, problem, thread),
        reply_list=reply_views,
    )


def history(session: Session, kind: str, post_id: int, user: User | None, now: datetime) -> HistoryView:
    """Every text a post had, oldest first, the current one last: for whoever may read the post."""
    if kind == THREAD:
        loaded = load_thread(session, post_id, user, now)
        post: Thread | Reply = loaded.thread
        current_title: str | None = loaded.thread.title
    elif kind == REPLY:
        post, loaded = load_reply(session, post_id, user, now)
        current_title = None
    else:
        raise NotFound(f"There is no {kind}.")
    solved = _solved(session, user, loaded.problem)
    revisions = [
        RevisionView(
            title=r.title,
            body=r.body,
            body_html=render_post(r.body, solved=solved),
            written_at=r.written_at,
            current=False,
        )
        for r in repository.revisions_of(session, kind, post_id)
    ]
    revisions.append(
        RevisionView(
            title=current_title,
            body=post.body,
            body_html=render_post(post.body, solved=solved),
            written_at=post.edited_at or post.created_at,
            current=True,
        )
    )
    return HistoryView(kind=kind, id=post_id, revisions=revisions)
