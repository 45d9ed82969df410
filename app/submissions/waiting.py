"""``?wait=true``: answer when a submission's verdict is recorded, or when a timeout passes.

Woken by the judge's notification (:class:`ResultWaiter`); each read uses a fresh session, so a
verdict recorded by another process (the scaled-out recorder) is seen too. A wake-up is a hint,
never the answer: the waiter reads again and answers only a finished submission (another
deployment's announcement, or a stray one, changes nothing), and it reads again every
``ResultWaiter.recheck_s`` without one, so a lost announcement is never the only way to the verdict.
:func:`wait_for` waits on the event loop: a waiting request holds neither a worker thread nor a
database connection, so many learners waiting at once cannot starve the judge of connections.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import anyio
from fastapi.responses import JSONResponse
from starlette.types import Receive, Scope, Send

from app.submissions.dispatch import ResultWaiter
from app.submissions.models import Submission

T = TypeVar("T")


async def wait_for(
    waiter: ResultWaiter,
    submission_id: int,
    read: Callable[[], T],
    done: Callable[[T], bool],
    seconds: float,
    *,
    since: int | None = None,
    view: Callable[[Submission], T | None] | None = None,
) -> T:
    """``read()`` (run in a worker thread) once ``done`` says so, or after ``seconds``: the last read.

    Subscribed before the first read, so a verdict recorded in between still wakes us. ``since``
    (a :meth:`ResultWaiter.mark` taken when the caller knew the submission unfinished) spares that
    first read unless a notification came after it; ``view`` turns the finished row a notification
    carried into the answer, sparing the last read too (None from ``view``: read it instead).
    """
    deadline = anyio.current_time() + seconds
    async with waiter.subscribe(submission_id) as recorded:
        start = waiter.mark() if since is None else since
        heard, row = waiter.heard(submission_id, since) if since is not None else (True, None)
        if row is not None and view is not None and (shown := view(row)) is not None:
            return shown
        if heard:
            value = await anyio.to_thread.run_sync(read)
            if done(value):
                return value
        while (remaining := deadline - anyio.current_time()) > 0:
            with anyio.move_on_after(min(waiter.recheck_s, remaining)):
                await recorded.wait()
            recorded.clear()  # before the read: a wake-up during it is not lost
            _heard, row = waiter.heard(submission_id, start)
            if row is not None and view is not None and (shown := view(row)) is not None:
                return shown  # the row the judge of this process recorded: finished
            if anyio.current_time() >= deadline:
                break  # the timeout: the last read below answers whatever the state
            value = await anyio.to_thread.run_sync(read)
            if done(value):
                return value
    return await anyio.to_thread.run_sync(read)


class WaitingResponse(JSONResponse):
    """A JSON answer whose body is produced when it is sent, after the route's transaction committed.

    ``produce`` is awaited on the event loop (with :func:`wait_for` when the request waits for a
    verdict), so nothing holds a worker thread or a database connection meanwhile; ``status_of``
    picks the status code from the produced body.
    """

    def __init__(
        self,
        produce: Callable[[], Awaitable[dict[str, Any]]],
        status_of: Callable[[dict[str, Any]], int] = lambda _: 200,
        headers: dict[str, str] | None = None,
    ) -> None:
        super().__init__(None, status_code=202)
        self._produce = produce
        self._status_of = status_of
        self._extra_headers = headers or {}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        body = await self._produce()
        response = JSONResponse(body, status_code=self._status_of(body), headers=self._extra_headers)
        await response(scope, receive, send)
