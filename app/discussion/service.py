"""Reading a discussion: a problem's threads (keyset pages), loading a thread or reply, edit history
(a thread with one page of its replies is :mod:`app.discussion.reading`).

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
from app.discussion.views import HistoryView, RevisionView, ThreadList, ThreadSummary, author_name
from app.kit.errors import InvalidInput, NotFound
from app.kit.paging import decode_cursor, next_url, page_of
from app.problems.models import Problem
from app.progress import repository as progress

PAGE_SIZE = 30
MAX_PAGE_SIZE = 100
DELETED = "[deleted]"  # a question its author deleted while it had replies: title, author and text


def thread_page_url(thread_id: int) -> str:
    return f"/discussion/threads/{thread_id}"


def solved_by(session: Session, user: User | None, problem: Problem) -> bool:
    return user is not None and progress.is_solved(session, user.id, problem.id)


def summary(thread: Thread, slug: str, author: str | None, answered: bool) -> ThreadSummary:
    """A thread's row; ``author`` as readers see it (``repository.author_names``; None: gone)."""
    gone = thread.deleted_at is not None
    return ThreadSummary(
        id=thread.id,
        problem=slug,
        title=DELETED if gone else thread.title,
        author=DELETED if gone else author or author_name(None),
        deleted=gone,
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
    authors = repository.author_names(session, {t.author_id for t in page.items})
    answered = repository.visible_reply_ids(session, {t.answer_id for t in page.items if t.answer_id})
    items = [summary(t, problem.slug, authors.get(t.author_id), t.answer_id in answered) for t in page.items]
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
    """The thread if ``user`` may read it: 404 when missing, hidden from them, behind a course's
    wall, or deleted by its author with no visible reply left; 403 behind Premium. A thread deleted
    while it has replies loads, as "[deleted]" (:func:`load_question` for acting on the question)."""
    thread = repository.get_thread(session, thread_id)
    missing = f"thread #{thread_id}"
    if thread is None:
        raise NotFound(f"There is no {missing}.")
    problem = access.problem_of(session, thread.problem_id, user, now, missing)
    if thread.deleted_at is not None:
        kept = thread.hidden_at is None and thread.reply_count > 0
    else:
        kept = access.sees_post(thread.author_id, thread.hidden_at is not None, False, user)
    if not kept:
        raise NotFound(f"There is no {missing}.")
    return Loaded(thread, problem)


def load_question(session: Session, thread_id: int, user: User | None, now: datetime) -> Loaded:
    """:func:`load_thread` for what acts on the question itself (edit, delete, vote, history):
    404 once its author deleted it, even while its replies stay."""
    loaded = load_thread(session, thread_id, user, now)
    if loaded.thread.deleted_at is not None:
        raise NotFound(f"The question of thread #{thread_id} was deleted by its author.")
    return loaded


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


def history(session: Session, kind: str, post_id: int, user: User | None, now: datetime) -> HistoryView:
    """Every text a post had, oldest first, the current one last: for whoever may read the post."""
    if kind == THREAD:
        loaded = load_question(session, post_id, user, now)
        post: Thread | Reply = loaded.thread
        current_title: str | None = loaded.thread.title
    elif kind == REPLY:
        post, loaded = load_reply(session, post_id, user, now)
        current_title = None
    else:
        raise NotFound(f"There is no {kind}.")
    solved = solved_by(session, user, loaded.problem)
    revisions = [
        RevisionView(
            title=r.title,
            body=r.body,
            body_html=render_post(r.body, solved=solved),
            written_at=r.written_at,
            current=False,
        )
        for r in repository.revisions_of(session, kind, post_id, post.created_at)
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
