"""Many more requests in flight than the pool has connections: every one is answered, none waits on the pool.

Without the database slots this deadlocks: requests holding a connection wait for a worker thread
while every thread waits for a connection, until the pool's 30 s timeout fails them.
"""

from __future__ import annotations

import threading
import uuid
from collections.abc import Awaitable, Callable, Iterator
from typing import Any

import anyio
import httpx
import pytest
from fastapi import FastAPI
from sqlalchemy import event

from app.accounts import service as accounts
from app.accounts import tokens
from app.kit.db import Database, utcnow
from app.kit.db_slots import DatabaseSlots
from app.kit.runner import JudgeRunner
from app.main import create_app
from tests.app.conftest import PASSWORD, settings_for

POOL_SIZE = 6  # 2 judge threads (settings_for) and 2 spare connections leave requests 2 slots
EACH = 40  # requests per route, all at once: far more than connections, and than worker threads
DEADLINE_S = 25.0  # well under the pool's 30 s timeout, well over the few seconds this takes


class CheckedOut:
    """The most connections the engine had checked out at once."""

    def __init__(self, database: Database) -> None:
        self._lock = threading.Lock()
        self.now = self.most = 0
        event.listen(database.engine, "checkout", self._out)
        event.listen(database.engine, "checkin", self._in)

    def _out(self, *_: Any) -> None:
        with self._lock:
            self.now += 1
            self.most = max(self.most, self.now)

    def _in(self, *_: Any) -> None:
        with self._lock:
            self.now -= 1


@pytest.fixture
def small_pool_app(seeded: Database, runner: JudgeRunner, db: Database) -> Iterator[FastAPI]:
    """The app on the test database through a pool of :data:`POOL_SIZE` connections."""
    small = Database(seeded.url, POOL_SIZE)
    settings = settings_for(seeded.url).model_copy(update={"db_pool_size": POOL_SIZE})
    app = create_app(settings, database=small, runner=runner)
    try:
        yield app
    finally:
        app.state.dispatcher.shutdown()
        small.dispose()


def _token(database: Database) -> str:
    with database.transaction() as session:
        user = accounts.sign_up(session, f"load-{uuid.uuid4().hex[:8]}@example.com", PASSWORD)
        _row, plain = tokens.create_token(session, user, "load", utcnow())
    return plain


def _client(app: FastAPI) -> httpx.AsyncClient:
    return httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://testserver")


def _requests(client: httpx.AsyncClient, token: str) -> list[Callable[[], Awaitable[httpx.Response]]]:
    """One of each kind: a page, a public API list, a token's list, the one-hop async API route."""
    bearer = {"Authorization": f"Bearer {token}"}
    return [
        lambda: client.get("/problems"),
        lambda: client.get("/api/v1/problems"),
        lambda: client.get("/api/v1/submissions", headers=bearer),
        lambda: client.get("/api/v1/submissions/2147483647", headers=bearer),  # nobody's: 404
    ]


EXPECTED = [200, 200, 200, 404]


def test_far_more_requests_than_connections_are_all_answered(small_pool_app: FastAPI, db: Database) -> None:
    token = _token(db)
    slots: DatabaseSlots = small_pool_app.state.db_slots
    checked_out = CheckedOut(small_pool_app.state.db)

    async def main() -> list[list[int]]:
        statuses: list[list[int]] = [[] for _ in EXPECTED]
        async with _client(small_pool_app) as client:
            kinds = _requests(client, token)

            async def one(kind: int) -> None:
                statuses[kind].append((await kinds[kind]()).status_code)

            with anyio.fail_after(DEADLINE_S):
                async with anyio.create_task_group() as tg:
                    for _ in range(EACH):
                        for kind in range(len(kinds)):
                            tg.start_soon(one, kind)
        return statuses

    statuses = anyio.run(main)
    assert statuses == [[status] * EACH for status in EXPECTED]
    assert slots.free == slots.total == POOL_SIZE - 2 - 2
    assert 1 <= checked_out.most <= slots.total  # requests never needed more than their slots


def test_every_kind_of_route_waits_for_a_database_slot(small_pool_app: FastAPI, db: Database) -> None:
    token = _token(db)
    slots: DatabaseSlots = small_pool_app.state.db_slots

    async def main() -> list[int]:
        answered: list[int] = []
        async with _client(small_pool_app) as client:
            for kind, request in enumerate(_requests(client, token)):
                for _ in range(slots.total):  # every slot taken
                    await slots.acquire()

                async def send(request: Callable[[], Awaitable[httpx.Response]] = request) -> None:
                    answered.append((await request()).status_code)

                with anyio.fail_after(DEADLINE_S):
                    async with anyio.create_task_group() as tg:
                        tg.start_soon(send)
                        while slots.waiting == 0:  # the request is queued for a slot ...
                            await anyio.sleep(0.005)
                        assert len(answered) == kind  # ... and not answered without one
                        for _ in range(slots.total):
                            slots.release()
        return answered

    assert anyio.run(main) == EXPECTED
    assert slots.free == slots.total
