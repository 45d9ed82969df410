"""The discussion's posts as moderation sees them (``app.moderation.targets.ModerationTarget``)."""

from __future__ import annotations

import re

from sqlalchemy.orm import Session

from app.discussion import repository
from app.discussion.models import REPLY, THREAD, Reply, Thread
from app.discussion.service import thread_page_url
from app.kit.db import utcnow
from app.moderation.targets import TargetInfo
from app.problems.models import Problem

EXCERPT = 300


def excerpt(text: str) -> str:
    """Plain text for the queue (shown escaped, never rendered): whitespace folded, cut short."""
    flat = re.sub(r"\s+", " ", text).strip()
    return flat if len(flat) <= EXCERPT else flat[: EXCERPT - 1] + "…"


class DiscussionTargets:
    kinds: tuple[str, ...] = (THREAD, REPLY)

    def _post(self, session: Session, kind: str, target_id: int) -> tuple[Thread | Reply, Thread] | None:
        if kind == THREAD:
            thread = repository.get_thread(session, target_id)
            return (thread, thread) if thread is not None else None
        if kind == REPLY:
            reply = repository.get_reply(session, target_id)
            parent = repository.get_thread(session, reply.thread_id) if reply is not None else None
            return (reply, parent) if reply is not None and parent is not None else None
        return None

    def describe(self, session: Session, kind: str, target_id: int) -> TargetInfo | None:
        found = self._post(session, kind, target_id)
        if found is None:
            return None
        post, thread = found
        return self._info(kind, post, thread, repository.get_problem(session, thread.problem_id))

    def describe_many(self, session: Session, kind: str, target_ids: list[int]) -> dict[int, TargetInfo]:
        """:meth:`describe` for a queue page at once (three queries, not three per post)."""
        if kind not in self.kinds:
            return {}
        posts: dict[int, Thread | Reply]
        if kind == THREAD:
            posts = dict(repository.threads_by_ids(session, set(target_ids)))
            threads = {i: p for i, p in posts.items() if isinstance(p, Thread)}
        else:
            posts = dict(repository.replies_by_ids(session, set(target_ids)))
            threads = repository.threads_by_ids(
                session, {p.thread_id for p in posts.values() if isinstance(p, Reply)}
            )
        problems = repository.problems_by_ids(session, {t.problem_id for t in threads.values()})
        out = {}
        for post_id, post in posts.items():
            thread = threads.get(post.thread_id if isinstance(post, Reply) else post.id)
            info = (
                self._info(kind, post, thread, problems.get(thread.problem_id))
                if thread is not None
                else None
            )
            if info is not None:
                out[post_id] = info
        return out

    def _info(
        self, kind: str, post: Thread | Reply, thread: Thread, problem: Problem | None
    ) -> TargetInfo | None:
        # A reply outlives its question deleted by its author (the thread stays as "[deleted]").
        if post.deleted_at is not None or (kind == THREAD and thread.deleted_at is not None):
            return None
        if problem is None:
            return None
        text = f"{thread.title} — {post.body}" if kind == THREAD else post.body
        url = thread_page_url(thread.id) + ("" if kind == THREAD else f"#reply-{post.id}")
        return TargetInfo(
            kind=kind,
            id=post.id,
            author_id=post.author_id,
            problem_slug=problem.slug,
            excerpt=excerpt(text),
            url=url,
            hidden=post.hidden_at is not None,
        )

    def set_hidden(self, session: Session, kind: str, target_id: int, hidden: bool) -> None:
        found = self._post(session, kind, target_id)
        if found is None:
            return
        post, _thread = found
        if (post.hidden_at is not None) == hidden:
            return
        post.hidden_at = utcnow() if hidden else None
        if isinstance(post, Reply) and post.deleted_at is None:
            repository.shift_reply_count(session, post.thread_id, -1 if hidden else +1)
        session.flush()
