"""``?wait=true``: answer when a submission's verdict is recorded, or when a timeout passes.

Woken by the judge's notification (:class:`ResultWaiter`), not by polling; each read uses a fresh
session, so a verdict recorded by another process (the scaled-out recorder) is seen too.
:func:`wait_for` waits on the event loop: a waiting request holds neither a worker thread nor a
database connection, so many learners waiting at once cannot starve the judge of connections.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

import anyio

from app.kit.db import Database
from app.submissions.dispatch import ResultWaiter
from app.submissions.service import is_finished

T = TypeVar("T")


def wait_finished(db: Database, waiter: ResultWaiter, submission_id: int, seconds: float) -> bool:
    """Whether the submission is finished, after waiting at most ``seconds`` for it to be (blocking)."""

    def finished() -> bool:
        with db.sessionmaker() as fresh:
            return is_finished(fresh, submission_id)

    return waiter.wait(submission_id, finished, seconds)


async def wait_for(
    waiter: ResultWaiter, submission_id: int, read: Callable[[], T], done: Callable[[T], bool], seconds: float
) -> T:
    """``read()`` (run in a worker thread) once ``done`` says so, or after ``seconds``: the last read.

    Subscribed before the first read, so a verdict recorded in between still wakes us.
    """
    async with waiter.subscribe(submission_id) as recorded:
        value = await anyio.to_thread.run_sync(read)
        if done(value):
            return value
        with anyio.move_on_after(seconds):
            await recorded.wait()
    return await anyio.to_thread.run_sync(read)
