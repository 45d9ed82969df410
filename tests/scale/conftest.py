"""Fixtures for the scale-out tests (the helpers live in ``tests/scale/stack.py``).

* ``redis_server``: a redis-server of our own on a free 127.0.0.1 port (append-only file on, like
  production), so a test may restart it, and pub/sub and keys never touch anyone else's Redis.
* ``scale_db``: a dedicated PostgreSQL database built by ``alembic upgrade head`` with the tiny
  fixture bank imported, dropped at the end of the session.
* ``stack``: starts runner workers, the recorder and the web app as subprocesses and kills every
  one of them (with their process groups) when the test ends.
"""

from __future__ import annotations

import os
import shutil
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url
from sqlalchemy.exc import OperationalError

from tests.scale.stack import BANK, DEFAULT_PG, RedisServer, Stack, clear_database


@pytest.fixture(scope="session")
def redis_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RedisServer]:
    if shutil.which("redis-server") is None:
        pytest.skip("redis-server is not installed")
    server = RedisServer(tmp_path_factory.mktemp("redis"))
    server.start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="session")
def scale_db() -> Iterator[str]:
    """URL of a fresh PostgreSQL database with the schema and the fixture bank."""
    from app.kit.db import Database, upgrade_database
    from app.problems.importer import import_bank
    from runner import get_runner

    base = os.environ.get("TORCHDRILL_TEST_DATABASE_URL", "")
    base = base if base.startswith("postgresql") else DEFAULT_PG
    name = f"torchdrill_scale_{uuid.uuid4().hex[:10]}"
    admin = create_engine(base, isolation_level="AUTOCOMMIT")
    try:
        for attempt in range(20):  # CREATE DATABASE fails while someone else copies template1
            try:
                with admin.connect() as conn:
                    conn.execute(text(f'CREATE DATABASE "{name}"'))
                break
            except OperationalError as exc:
                if "being accessed by other users" not in str(exc) or attempt == 19:
                    raise
                time.sleep(0.5)
    except OperationalError as exc:
        pytest.skip(f"PostgreSQL is not reachable at {base}: {exc}")
    url = make_url(base).set(database=name).render_as_string(hide_password=False)
    try:
        upgrade_database(url)
        db = Database(url)
        with db.transaction() as session:
            report = import_bank(session, BANK, get_runner())
        assert report.ok, report.summary()
        db.dispose()
        yield url
    finally:
        with admin.connect() as conn:
            conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()


@pytest.fixture
def stack(redis_server: RedisServer, scale_db: str, tmp_path: Path) -> Iterator[Stack]:
    """A clean broker and no submissions or users at the start; every process killed at the end."""
    redis_server.client().flushall()
    clear_database(scale_db)
    s = Stack(redis_server, scale_db, tmp_path)
    try:
        yield s
    finally:
        s.close()
        print(s.logs())  # captured: shown by pytest only when the test failed
