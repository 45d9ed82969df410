"""``DatabaseSlots``: a counting semaphore taken on the event loop, fair, and safe across loops."""

from __future__ import annotations

import asyncio
import threading
import time

import anyio
import anyio.to_thread
import pytest

from app.kit.db import SPARE_CONNECTIONS, request_slots
from app.kit.db_slots import THREADS_BEYOND_SLOTS, DatabaseSlots, keep_threads_beyond


async def _until(condition: object, timeout: float = 5.0) -> None:
    """Poll ``condition()`` on the loop until it holds; fail after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while not condition():  # type: ignore[operator]
        assert time.monotonic() < deadline, "the condition never held"
        await anyio.sleep(0.001)


def test_slots_admit_up_to_their_total_then_serve_waiters_first_come_first_served() -> None:
    async def main() -> list[str]:
        slots = DatabaseSlots(2)
        await slots.acquire()
        await slots.acquire()
        assert slots.free == 0
        served: list[str] = []

        async def take(name: str) -> None:
            await slots.acquire()
            served.append(name)

        async with anyio.create_task_group() as tg:
            for name in ("first", "second", "third"):
                tg.start_soon(take, name)
                await anyio.wait_all_tasks_blocked()  # queued in this order
            assert slots.waiting == 3 and served == []
            slots.release()
            await _until(lambda: len(served) == 1)
            assert served == ["first"]
            slots.release()
            slots.release()
        assert slots.free == 0 and slots.waiting == 0  # "second" and "third" hold them
        slots.release()
        slots.release()
        assert slots.free == 2
        with pytest.raises(RuntimeError):
            slots.release()  # more often than taken
        return served

    assert anyio.run(main) == ["first", "second", "third"]


def test_a_waiter_cancelled_while_waiting_loses_its_place_and_no_slot() -> None:
    async def main() -> None:
        slots = DatabaseSlots(1)
        await slots.acquire()
        with anyio.move_on_after(0.05) as scope:
            await slots.acquire()
        assert scope.cancelled_caught
        assert slots.waiting == 0
        slots.release()
        assert slots.free == 1

    anyio.run(main)


def test_a_slot_handed_to_a_waiter_cancelled_before_it_ran_is_passed_on() -> None:
    async def main() -> None:
        slots = DatabaseSlots(1)
        await slots.acquire()
        got: list[bool] = []

        async def take() -> None:
            await slots.acquire()
            got.append(True)

        task = asyncio.create_task(take())
        await _until(lambda: slots.waiting == 1)
        slots.release()  # handed over: the waiter's future is done, the waiter has not run yet
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
        assert task.cancelled() and got == []
        assert slots.free == 1  # the cancelled waiter gave it back

    asyncio.run(main())


def test_a_waiter_on_another_event_loop_is_woken_by_a_release() -> None:
    slots = DatabaseSlots(1)
    acquired = threading.Event()

    def other_loop() -> None:
        async def take() -> None:
            await slots.acquire()
            acquired.set()
            slots.release()

        asyncio.run(take())

    async def main() -> None:
        await slots.acquire()
        thread = threading.Thread(target=other_loop)
        thread.start()
        await _until(lambda: slots.waiting == 1)
        assert not acquired.is_set()
        slots.release()
        await anyio.to_thread.run_sync(thread.join, 10)
        assert acquired.is_set()

    anyio.run(main)
    assert slots.free == 1


def test_no_slots_is_refused() -> None:
    with pytest.raises(ValueError):
        DatabaseSlots(0)


def test_requests_get_the_pool_less_the_judge_threads_and_the_spare() -> None:
    assert request_slots(20, 2) == 20 - 2 - SPARE_CONNECTIONS
    assert request_slots(2 + SPARE_CONNECTIONS + 1, 2) == 1
    with pytest.raises(ValueError, match="TORCHDRILL_DB_POOL_SIZE"):
        request_slots(2 + SPARE_CONNECTIONS, 2)


def test_the_threadpool_is_kept_larger_than_the_slots() -> None:
    async def main() -> tuple[int, int]:
        limiter = anyio.to_thread.current_default_thread_limiter()
        default = limiter.total_tokens
        keep_threads_beyond(DatabaseSlots(2))  # already enough: unchanged
        unchanged = limiter.total_tokens
        assert unchanged == default
        keep_threads_beyond(DatabaseSlots(default))
        return default, limiter.total_tokens

    default, raised = anyio.run(main)
    assert raised == default + THREADS_BEYOND_SLOTS
