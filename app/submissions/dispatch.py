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
from collections import OrderedDict
from collections.abc import AsyncIterator, Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Protocol

from app.submissions.models import Submission

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

    It also remembers the last ``remember`` notifications, numbered, each with the finished row
    when the notifier had it (the embedded judge does; a notification from another process has
    none): a request that knew its submission unfinished at :meth:`mark` asks :meth:`heard`
    instead of reading the database again, and answers from the row it was handed.
    """

    def __init__(self, remember: int = 512, recheck_s: float = 2.0) -> None:
        self.recheck_s = recheck_s  # waiters read the database this often even without a wake-up
        self._lock = threading.Lock()
        self._wakers: dict[int, list[Callable[[], None]]] = {}
        self._remember = remember
        self._seq = 0
        self._forgotten = 0  # the number of the newest notification no longer remembered
        self._recent: OrderedDict[int, tuple[int, Submission | None]] = OrderedDict()
        self._listeners: list[Callable[[int, Submission | None], None]] = []

    def listen(self, listener: Callable[[int, Submission | None], None]) -> None:
        """Also tell ``listener`` of every verdict, after its commit, in the notifier's thread (it
        must not block: LTI grade passback queues work for its own thread)."""
        self._listeners.append(listener)

    def notify(self, submission_id: int, finished: Submission | None = None) -> None:
        """``submission_id`` has its verdict (``finished``: the row as recorded, if the caller has it)."""
        with self._lock:
            self._seq += 1
            self._recent.pop(submission_id, None)
            self._recent[submission_id] = (self._seq, finished)
            while len(self._recent) > self._remember:
                _, (seq, _row) = self._recent.popitem(last=False)
                self._forgotten = max(self._forgotten, seq)
            wakers = list(self._wakers.get(submission_id, ()))
        for wake in wakers:
            wake()
        for listener in self._listeners:
            try:
                listener(submission_id, finished)
            except Exception:  # a listener's failure never loses the verdict's wake-ups
                log.exception("verdict listener failed on submission %s", submission_id)

    def mark(self) -> int:
        """The current point in the notifications, for :meth:`heard`."""
        with self._lock:
            return self._seq

    def heard(self, submission_id: int, since: int) -> tuple[bool, Submission | None]:
        """Whether ``submission_id`` was notified after ``since`` (a :meth:`mark`), and its row if given.

        ``(True, None)`` too when it cannot tell (that notification may have been forgotten).
        """
        with self._lock:
            seq, row = self._recent.get(submission_id, (0, None))
            if seq > since:
                return True, row
            return since < self._forgotten, None

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
