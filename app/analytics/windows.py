"""The window rows: what each student's rows were computed for, and the lock their writers take.

Writes replace a student's rows for some problems of one assignment in the caller's transaction,
after :func:`lock_windows` has locked the students' window rows (in user order: every writer
locks in that order, so two never wait for each other in a circle). An assignment's own row keeps
the problems its rows were last grouped by (:func:`assignment_problems_key`).
"""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import bindparam, select, update
from sqlalchemy.orm import Session

from app.analytics.tables import ASSIGNMENTS, WINDOWS, chunks
from app.kit.db import backend_insert


def lock_windows(session: Session, assignment_id: int, user_ids: Sequence[int]) -> dict[int, str]:
    """Lock the students' window rows (made if missing, key ``""``), in user order; their keys.

    The rows are locked first and only the missing ones inserted (then locked): a verdict's writer,
    whose student has a row once they have done anything, pays one statement."""
    ordered = sorted(set(user_ids))
    backend = session.get_bind().dialect.name
    keys: dict[int, str] = {}

    def lock(chunk: Sequence[int]) -> None:
        stmt = (
            select(WINDOWS.c.user_id, WINDOWS.c.key)
            .where(WINDOWS.c.assignment_id == assignment_id, WINDOWS.c.user_id.in_(chunk))
            .order_by(WINDOWS.c.user_id)
            .with_for_update()
        )
        keys.update({u: k for u, k in session.execute(stmt)})

    for chunk in chunks(ordered):
        lock(chunk)
        missing = [u for u in chunk if u not in keys]
        if missing:
            session.execute(
                backend_insert(backend)(WINDOWS).on_conflict_do_nothing(),
                [{"assignment_id": assignment_id, "user_id": u, "key": ""} for u in missing],
            )
            lock(missing)
    return keys


_SET_KEY = (
    update(WINDOWS)
    .where(WINDOWS.c.assignment_id == bindparam("a"), WINDOWS.c.user_id == bindparam("u"))
    .values(key=bindparam("k"))
)


def set_window_keys(session: Session, assignment_id: int, keys: dict[int, str]) -> None:
    """One statement run with every student's key (an executemany), in user order."""
    if keys:
        session.execute(_SET_KEY, [{"a": assignment_id, "u": u, "k": k} for u, k in sorted(keys.items())])


def window_keys(session: Session, assignment_id: int, user_ids: Sequence[int]) -> dict[int, str]:
    """The keys the students' rows were computed for (a student without rows has none)."""
    out: dict[int, str] = {}
    for chunk in chunks(sorted(user_ids)):
        stmt = select(WINDOWS.c.user_id, WINDOWS.c.key).where(
            WINDOWS.c.assignment_id == assignment_id, WINDOWS.c.user_id.in_(chunk)
        )
        out.update({u: k for u, k in session.execute(stmt)})
    return out


def assignment_problems_key(session: Session, assignment_id: int) -> str | None:
    """The problems key the assignment's rows were last grouped by, if ever."""
    a = ASSIGNMENTS.c
    return session.scalar(select(a.problems_key).where(a.assignment_id == assignment_id))


def set_assignment_problems_key(session: Session, assignment_id: int, problems_key: str) -> None:
    backend = session.get_bind().dialect.name
    stmt = backend_insert(backend)(ASSIGNMENTS).values(assignment_id=assignment_id, problems_key=problems_key)
    session.execute(
        stmt.on_conflict_do_update(index_elements=["assignment_id"], set_={"problems_key": problems_key})
    )
