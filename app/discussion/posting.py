"""Writing in a discussion: threads, replies, edits (the previous text kept), deletes, votes, marks.

Every write passes the problem's gate first, then its own rule (:mod:`app.discussion.access`).
Texts go through :func:`app.kit.user_text.check_user_text` (bounded, no NUL); posting and editing
share one rate limit (``TORCHDRILL_DISCUSSION_POSTS_PER_MINUTE``, the app's limiter in its own
window). Counts (votes, replies) change in the transaction that changes what they count.
"""

from __future__ import annotations

import logging
from datetime import datetime

from sqlalchemy.orm import Session

from app.accounts.models import User
from app.discussion import access, repository, service
from app.discussion.models import REPLY, THREAD, Reply, Revision, Thread
from app.kit.errors import Forbidden, InvalidInput, NotFound
from app.kit.fields import check_one_line
from app.kit.limits import Quota
from app.kit.user_text import check_user_text

log = logging.getLogger(__name__)

MAX_TITLE = 150
MAX_BODY = 20_000
MAX_REPLY = 20_000


def _title(value: str) -> str:
    title = check_user_text(value, "The title", max_chars=MAX_TITLE).strip()
    return check_one_line(title, "title")


def create_thread(
    session: Session, user: User, slug: str, title: str, body: str, now: datetime, limiter: Quota
) -> Thread:
    problem = access.problem_by_slug(session, slug, user, now)
    clean_title = _title(title)
    text = check_user_text(body, "The question", max_chars=MAX_BODY)
    limiter.hit(user.id)
    thread = Thread(
        problem_id=problem.id,
        author_id=user.id,
        title=clean_title,
        body=text,
        votes=0,
        reply_count=0,
        created_at=now,
    )
    repository.add(session, thread)
    log.info("discussion thread %s on %s by user %s", thread.id, problem.slug, user.id)
    return thread


def create_reply(
    session: Session, user: User, thread_id: int, body: str, now: datetime, limiter: Quota
) -> Reply:
    loaded = service.load_thread(session, thread_id, user, now)
    if loaded.thread.hidden_at is not None:
        raise Forbidden("A moderator hid this thread: it takes no new replies.")
    if loaded.thread.deleted_at is not None:
        raise Forbidden("Its author deleted this question: the thread takes no new replies.")
    text = check_user_text(body, "The reply", max_chars=MAX_REPLY)
    limiter.hit(user.id)
    reply = Reply(thread_id=thread_id, author_id=user.id, body=text, votes=0, created_at=now)
    repository.add(session, reply)
    repository.shift_reply_count(session, thread_id, +1)
    return reply


def _own(post: Thread | Reply, user: User, what: str) -> None:
    if post.author_id != user.id:
        raise Forbidden(f"Only the author of this {what} may change it.")


def edit_thread(
    session: Session,
    user: User,
    thread_id: int,
    title: str | None,
    body: str | None,
    now: datetime,
    limiter: Quota,
) -> Thread:
    thread = service.load_question(session, thread_id, user, now).thread
    _own(thread, user, "thread")
    new_title = _title(title) if title is not None else thread.title
    new_body = check_user_text(body, "The question", max_chars=MAX_BODY) if body is not None else thread.body
    if new_title == thread.title and new_body == thread.body:
        return thread
    limiter.hit(user.id)
    repository.add(
        session,
        Revision(
            kind=THREAD,
            post_id=thread.id,
            title=thread.title,
            body=thread.body,
            written_at=thread.edited_at or thread.created_at,
        ),
    )
    thread.title, thread.body, thread.edited_at = new_title, new_body, now
    session.flush()
    return thread


def edit_reply(
    session: Session, user: User, reply_id: int, body: str, now: datetime, limiter: Quota
) -> Reply:
    reply, _loaded = service.load_reply(session, reply_id, user, now)
    _own(reply, user, "reply")
    text = check_user_text(body, "The reply", max_chars=MAX_REPLY)
    if text == reply.body:
        return reply
    limiter.hit(user.id)
    repository.add(
        session,
        Revision(
            kind=REPLY,
            post_id=reply.id,
            title=None,
            body=reply.body,
            written_at=reply.edited_at or reply.created_at,
        ),
    )
    reply.body, reply.edited_at = text, now
    session.flush()
    return reply


def delete_thread(session: Session, user: User, thread_id: int, now: datetime) -> Thread:
    """The author's soft delete of the question. With visible replies the thread stays, listed as
    "[deleted]" (no title, text or author shown) with its replies, until its last reply goes; with
    none it leaves every view at once (``models.LISTED``)."""
    thread = service.load_question(session, thread_id, user, now).thread
    _own(thread, user, "thread")
    thread.deleted_at = now
    session.flush()
    kept = "kept for its replies" if thread.reply_count > 0 and thread.hidden_at is None else "gone"
    log.info("discussion thread %s deleted by its author %s (%s)", thread.id, user.id, kept)
    return thread


def delete_reply(session: Session, user: User, reply_id: int, now: datetime) -> Reply:
    """The author's soft delete: gone from the API and counts; the thread shows a "deleted" line."""
    reply, loaded = service.load_reply(session, reply_id, user, now)
    _own(reply, user, "reply")
    reply.deleted_at = now
    if reply.hidden_at is None:
        repository.shift_reply_count(session, reply.thread_id, -1)
    thread = loaded.thread
    if thread.answer_id == reply.id:
        thread.answer_id = None
    if thread.pinned_id == reply.id:
        thread.pinned_id = None
    session.flush()
    session.refresh(thread)  # its count, as the update left it (a "[deleted]" question may go with it)
    return reply


def vote(session: Session, user: User, kind: str, post_id: int, up: bool, now: datetime) -> int:
    """Vote for a post (``up``) or take the vote back; the post's count, as it now stands."""
    post: Thread | Reply
    if kind == THREAD:
        post = service.load_question(session, post_id, user, now).thread
    elif kind == REPLY:
        post, _ = service.load_reply(session, post_id, user, now)
    else:
        raise NotFound(f"There is no {kind[:20]}.")
    if post.author_id == user.id:
        raise Forbidden("You cannot vote for your own post.")
    if post.hidden_at is not None:
        raise Forbidden("A moderator hid this post.")
    if up:
        repository.add_vote(session, user.id, kind, post_id, now)
    else:
        repository.remove_vote(session, user.id, kind, post_id)
    session.refresh(post)
    return post.votes


def _reply_of(session: Session, thread: Thread, reply_id: int | None, user: User) -> int | None:
    if reply_id is None:
        return None
    reply = repository.get_reply(session, reply_id)
    if (
        reply is None
        or reply.thread_id != thread.id
        or reply.deleted_at is not None
        or reply.hidden_at is not None
    ):
        raise InvalidInput(f"Reply #{reply_id} is not a reply of thread #{thread.id}.")
    return reply.id


def mark(
    session: Session,
    user: User,
    thread_id: int,
    *,
    answer: int | bool | None = False,
    pinned: int | bool | None = False,
    now: datetime,
) -> Thread:
    """Set (a reply's id) or clear (None) the thread's answer and/or pinned reply; False leaves one as is.

    The thread's author, the problem's owners, admins and its courses' instructors only."""
    loaded = service.load_thread(session, thread_id, user, now)
    if not access.can_mark(session, user, loaded.problem, loaded.thread):
        raise Forbidden(
            "Only the thread's author and the problem's instructors mark answers and pin replies."
        )
    thread = loaded.thread
    if answer is not False:
        thread.answer_id = _reply_of(session, thread, answer if isinstance(answer, int) else None, user)
    if pinned is not False:
        thread.pinned_id = _reply_of(session, thread, pinned if isinstance(pinned, int) else None, user)
    session.flush()
    return thread
