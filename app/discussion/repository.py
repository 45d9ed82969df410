"""Every query of the discussion: threads and replies (visible ones for listings), revisions, votes."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from sqlalchemy import ColumnElement, Select, and_, delete, func, or_, select, tuple_, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from app.accounts.models import User
from app.discussion.models import REPLY, THREAD, Reply, Revision, Thread, Vote
from app.discussion.views import role_name
from app.problems.models import Problem

NEWEST = "newest"
VOTES = "votes"
SORTS = (NEWEST, VOTES)


def _visible_threads() -> Select[Thread]:
    """Listed threads (``models.LISTED``, the partial indexes' predicate)."""
    return select(Thread).where(
        Thread.hidden_at.is_(None), or_(Thread.deleted_at.is_(None), Thread.reply_count > 0)
    )


def add(session: Session, row: Thread | Reply | Revision) -> None:
    session.add(row)
    session.flush()


def get_thread(session: Session, thread_id: int) -> Thread | None:
    return session.get(Thread, thread_id)


def get_reply(session: Session, reply_id: int) -> Reply | None:
    return session.get(Reply, reply_id)


def get_problem(session: Session, problem_id: int) -> Problem | None:
    return session.get(Problem, problem_id)


def threads_by_ids(session: Session, ids: set[int]) -> dict[int, Thread]:
    if not ids:
        return {}
    return {t.id: t for t in session.scalars(select(Thread).where(Thread.id.in_(ids)))}


def replies_by_ids(session: Session, ids: set[int]) -> dict[int, Reply]:
    if not ids:
        return {}
    return {r.id: r for r in session.scalars(select(Reply).where(Reply.id.in_(ids)))}


def problems_by_ids(session: Session, ids: set[int]) -> dict[int, Problem]:
    if not ids:
        return {}
    return {p.id: p for p in session.scalars(select(Problem).where(Problem.id.in_(ids)))}


def threads_page(
    session: Session, problem_id: int, sort: str, after: tuple[int, ...] | None, limit: int
) -> Sequence[Thread]:
    """Visible threads of a problem, ``limit + 1`` of them after the cursor's key, in ``sort`` order
    (newest: id descending; votes: votes then id descending), over the problem's indexes."""
    stmt = _visible_threads().where(Thread.problem_id == problem_id)
    if sort == VOTES:
        if after is not None:
            stmt = stmt.where(tuple_(Thread.votes, Thread.id) < tuple_(after[0], after[1]))
        stmt = stmt.order_by(Thread.votes.desc(), Thread.id.desc())
    else:
        if after is not None:
            stmt = stmt.where(Thread.id < after[0])
        stmt = stmt.order_by(Thread.id.desc())
    return session.scalars(stmt.limit(limit + 1)).all()


def count_threads(session: Session, problem_id: int) -> int:
    """Visible threads of a problem (the problem page's link)."""
    stmt = select(func.count()).select_from(
        _visible_threads().where(Thread.problem_id == problem_id).subquery()
    )
    return int(session.scalar(stmt) or 0)


def _seen_reply(user_id: int | None, placeholders: bool) -> ColumnElement[bool]:
    """Replies a reader sees: visible ones and their own hidden ones; with ``placeholders`` also
    the ones their authors deleted (a page shows where they were; the API never does)."""
    hidden_ok = (
        Reply.hidden_at.is_(None)
        if user_id is None
        else or_(Reply.hidden_at.is_(None), Reply.author_id == user_id)
    )
    seen: ColumnElement[bool] = and_(Reply.deleted_at.is_(None), hidden_ok)
    if placeholders:
        seen = or_(seen, and_(Reply.deleted_at.is_not(None), Reply.hidden_at.is_(None)))
    return seen


def replies_page(
    session: Session,
    thread_id: int,
    user_id: int | None,
    after: int | None,
    limit: int,
    *,
    skip: set[int],
    placeholders: bool,
) -> Sequence[Reply]:
    """``limit + 1`` replies of a thread after the cursor's id, oldest first, over the thread's index;
    ``skip`` leaves out the replies shown on top (the pinned one and the answer)."""
    stmt = select(Reply).where(Reply.thread_id == thread_id, _seen_reply(user_id, placeholders))
    if skip:
        stmt = stmt.where(Reply.id.not_in(skip))
    if after is not None:
        stmt = stmt.where(Reply.id > after)
    return session.scalars(stmt.order_by(Reply.id).limit(limit + 1)).all()


def replies_before(session: Session, thread_id: int, reply_id: int, cap: int) -> int:
    """How many replies of the thread come before ``reply_id``, counted up to ``cap`` only."""
    first = select(Reply.id).where(Reply.thread_id == thread_id, Reply.id < reply_id).limit(cap).subquery()
    return int(session.scalar(select(func.count()).select_from(first)) or 0)


def visible_reply_ids(session: Session, ids: set[int]) -> set[int]:
    if not ids:
        return set()
    stmt = select(Reply.id).where(Reply.id.in_(ids), Reply.hidden_at.is_(None), Reply.deleted_at.is_(None))
    return set(session.scalars(stmt))


def revisions_of(session: Session, kind: str, post_id: int, since: datetime) -> Sequence[Revision]:
    """The post's earlier texts: written since it was created (``post_id`` is a plain id, and a
    database that reuses the ids of deleted rows must not lend it an older post's history)."""
    stmt = (
        select(Revision)
        .where(Revision.kind == kind, Revision.post_id == post_id, Revision.written_at >= since)
        .order_by(Revision.id)
    )
    return session.scalars(stmt).all()


def author_names(session: Session, ids: set[int]) -> dict[int, str]:
    """What readers see of these authors (``views.role_name``), from two columns of each."""
    if not ids:
        return {}
    rows = session.execute(select(User.id, User.role).where(User.id.in_(ids)))
    return {user_id: role_name(user_id, role) for user_id, role in rows}


def users_by_ids(session: Session, ids: set[int]) -> dict[int, User]:
    if not ids:
        return {}
    return {u.id: u for u in session.scalars(select(User).where(User.id.in_(ids)))}


def voted(session: Session, user_id: int, kind: str, post_ids: Sequence[int]) -> set[int]:
    """Which of ``post_ids`` the user has voted for."""
    if not post_ids:
        return set()
    stmt = select(Vote.post_id).where(Vote.user_id == user_id, Vote.kind == kind, Vote.post_id.in_(post_ids))
    return set(session.scalars(stmt))


def _model(kind: str) -> type[Thread] | type[Reply]:
    return Thread if kind == THREAD else Reply


def add_vote(session: Session, user_id: int, kind: str, post_id: int, now: datetime) -> bool:
    """Record the vote and add it to the post's count in this transaction; False if already there."""
    try:
        with session.begin_nested():
            session.add(Vote(kind=kind, post_id=post_id, user_id=user_id, created_at=now))
            session.flush()
    except IntegrityError:
        return False
    model = _model(kind)
    session.execute(update(model).where(model.id == post_id).values(votes=model.votes + 1))
    return True


def remove_vote(session: Session, user_id: int, kind: str, post_id: int) -> bool:
    gone = session.execute(
        delete(Vote).where(Vote.user_id == user_id, Vote.kind == kind, Vote.post_id == post_id)
    )
    if not gone.rowcount:  # type: ignore[attr-defined]
        return False
    model = _model(kind)
    session.execute(update(model).where(model.id == post_id).values(votes=model.votes - 1))
    return True


def shift_reply_count(session: Session, thread_id: int, by: int) -> None:
    session.execute(update(Thread).where(Thread.id == thread_id).values(reply_count=Thread.reply_count + by))


__all__ = ["NEWEST", "REPLY", "SORTS", "THREAD", "VOTES"]
