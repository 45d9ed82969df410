"""The one seam between "a submission was stored" and "it gets judged".

Routes never call the runner: they store a submission and, after the commit, hand its id to
the app's :class:`Dispatcher`. The embedded default judges in a small thread pool inside the
web process; a Celery dispatcher will send the id to a worker that calls the same
:func:`app.submissions.judging.judge_submission`.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
from collections.abc import AsyncIterator, Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Protocol

log = logging.getLogger(__name__)


class Dispatcher(Protocol):
    def submit(self, submission_id: int) -> None:
        """Arrange for the submission to be judged. Must not block on judging."""
        ...

    def shutdown(self) -> None: ...


class ResultWaiter:
    """Wake whoever waits for a submission's verdict as soon as it is recorded.

    Waiters register *before* checking the database, so a result recorded between the check and
    the wait is never missed. Used by ``?wait=true``: :meth:`wait` blocks a thread,
    :meth:`subscribe` gives an event loop an :class:`asyncio.Event` instead, so a request waiting
    for its verdict holds no worker thread (and no database connection) meanwhile.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._wakers: dict[int, list[Callable[[], None]]] = {}

    def notify(self, submission_id: int) -> None:
        with self._lock:
            wakers = list(self._wakers.get(submission_id, ()))
        for wake in wakers:
            wake()

    @contextlib.contextmanager
    def _registered(self, submission_id: int, wake: Callable[[], None]) -> Iterator[None]:
        with self._lock:
            self._wakers.setdefault(submission_id, []).append(wake)
        try:
            yield
        finally:
            with self._lock:
                wakers = self._wakers.get(submission_id, [])
                wakers.remove(wake)
                if not wakers:
                    self._wakers.pop(submission_id, None)

    def wait(self, submission_id: int, is_finished: Callable[[], bool], timeout: float) -> bool:
        """Block until ``is_finished()`` or a notification, at most ``timeout`` seconds."""
        event = threading.Event()
        with self._registered(submission_id, event.set):
            if is_finished():
                return True
            event.wait(timeout)
            return is_finished()

    @contextlib.asynccontextmanager
    async def subscribe(self, submission_id: int) -> AsyncIterator[asyncio.Event]:
        """An event of the running loop, set when the submission's verdict is recorded."""
        loop = asyncio.get_running_loop()
        event = asyncio.Event()

        def wake() -> None:
            with contextlib.suppress(RuntimeError):  # the loop has closed: nobody waits any more
                loop.call_soon_threadsafe(event.set)

        with self._registered(submission_id, wake):
            yield event


class InProcessDispatcher:
    """Judge submissions on a small thread pool in this process (the embedded default)."""

    def __init__(self, judge: Callable[[int], None], workers: int = 2) -> None:
        self._judge = judge
        self._pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="judge")
        self._pending: set[Future[None]] = set()
        self._lock = threading.Lock()

    def submit(self, submission_id: int) -> None:
        future = self._pool.submit(self._run, submission_id)
        with self._lock:
            self._pending.add(future)
        future.add_done_callback(self._forget)

    def _run(self, submission_id: int) -> None:
        try:
            self._judge(submission_id)
        except Exception:  # the submission stays queued/running and is re-dispatched on restart
            log.exception("judging submission %s failed", submission_id)

    def _forget(self, future: Future[None]) -> None:
        with self._lock:
            self._pending.discard(future)

    def idle(self) -> bool:
        with self._lock:
            return not self._pending

    def shutdown(self) -> None:
        self._pool.shutdown(wait=True, cancel_futures=False)
