"""Database slots: an admission limit on the requests that may hold a pooled connection at once.

A request takes a slot on the event loop *before* any of its database work and gives it back after
its session's teardown (``app.kit.web.DatabaseSlot``). Waiting for a slot holds nothing: no worker
thread, no connection. With fewer slots than the pool has connections for requests, a request's
checkout never waits, so a request that holds a connection while it waits for a worker thread can
never be waited on by threads blocked on the pool (the deadlock a capped pool otherwise has once
more requests are in flight than it has connections). The arithmetic is in ``app.kit.db``.

The slots are shared by every event loop of the process (one in a server; a test client may run one
per request on several threads), so the count is guarded by a lock and a waiter on another loop is
woken with ``call_soon_threadsafe``. Waiters are served first come, first served. asyncio only
(uvicorn and Starlette's test client run on it).
"""

from __future__ import annotations

import asyncio
import threading
from collections import deque
from types import TracebackType

import anyio
import anyio.to_thread

# Worker threads kept free of database work: the threadpool has at least this many more threads
# than there are slots, so pages without the database, static files and one-hop reads find a thread.
THREADS_BEYOND_SLOTS = 8

_Waiter = tuple[asyncio.AbstractEventLoop, "asyncio.Future[None]"]


class DatabaseSlots:
    """``total`` slots; ``async with slots:`` holds one (a counting semaphore, safe across loops)."""

    def __init__(self, total: int) -> None:
        if total < 1:
            raise ValueError(f"at least one database slot is needed, not {total}")
        self.total = total
        self._free = total
        self._lock = threading.Lock()
        self._waiters: deque[_Waiter] = deque()

    @property
    def free(self) -> int:
        """Slots nobody holds (none while anyone waits)."""
        with self._lock:
            return self._free

    @property
    def waiting(self) -> int:
        with self._lock:
            return len(self._waiters)

    async def acquire(self) -> None:
        """Wait (on the event loop) until a slot is free, and take it."""
        with self._lock:
            if self._free and not self._waiters:
                self._free -= 1
                return
            loop = asyncio.get_running_loop()
            waiter: _Waiter = (loop, loop.create_future())
            self._waiters.append(waiter)
        try:
            await waiter[1]
        except BaseException:  # cancelled while waiting, or just after the slot was handed over
            with self._lock:
                handed_over = waiter not in self._waiters
                if not handed_over:
                    self._waiters.remove(waiter)
            if handed_over and waiter[1].done() and not waiter[1].cancelled():
                self.release()  # ours, but nobody will use it
            # Handed over, not yet delivered: the delivery sees the cancelled future and passes it on.
            raise

    def release(self) -> None:
        """Give a slot back: to the longest waiter still waiting, else to the free count."""
        while True:
            with self._lock:
                if not self._waiters:
                    if self._free == self.total:
                        raise RuntimeError("a database slot was given back more often than taken")
                    self._free += 1
                    return
                loop, future = self._waiters.popleft()
            if self._hand_over(loop, future):
                return

    def _hand_over(self, loop: asyncio.AbstractEventLoop, future: asyncio.Future[None]) -> bool:
        """Give the slot to ``future``'s waiter; False if it is gone (cancelled, or its loop closed)."""
        try:
            running: asyncio.AbstractEventLoop | None = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if loop is running:
            if future.done():
                return False
            future.set_result(None)
            return True
        try:
            loop.call_soon_threadsafe(self._deliver, future)
        except RuntimeError:  # that loop has closed: nobody waits there any more
            return False
        return True

    def _deliver(self, future: asyncio.Future[None]) -> None:
        """On the waiter's loop: the slot handed over from another loop."""
        if future.done():
            self.release()
        else:
            future.set_result(None)

    async def __aenter__(self) -> None:
        await self.acquire()

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.release()


def keep_threads_beyond(slots: DatabaseSlots) -> None:
    """Make the running loop's threadpool larger than ``slots`` by :data:`THREADS_BEYOND_SLOTS`.

    Not needed to avoid the deadlock (the pool has room for every slot), but slot holders then
    occupy at most ``slots.total`` threads, and the rest stay free for work without the database.
    anyio's default (40 threads) is already enough unless the pool is made very large.
    """
    limiter = anyio.to_thread.current_default_thread_limiter()
    limiter.total_tokens = max(limiter.total_tokens, slots.total + THREADS_BEYOND_SLOTS)
