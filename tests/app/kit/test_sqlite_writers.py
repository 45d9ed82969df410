"""SQLite writers of one process queue on a lock: a second writer waits for the first to commit
instead of meeting SQLite's lock (and its busy handler's sleeps), and the lock is never left held."""

from __future__ import annotations

import contextlib
import sqlite3
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import text

from app.kit.db import Database
from app.kit.sqlite_writers import QueuedWriterConnection, connection_factory, opens_write_transaction

DEADLINE_S = 20.0


class WatchedLock:
    """The writer lock, saying when someone starts waiting for it."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.waiting = threading.Event()

    def acquire(self, timeout: float = -1) -> bool:
        if self.lock.locked():
            self.waiting.set()
        return self.lock.acquire(timeout=timeout)

    def release(self) -> None:
        self.lock.release()

    def locked(self) -> bool:
        return self.lock.locked()


@pytest.fixture
def factory(tmp_path: Path) -> Iterator[type[QueuedWriterConnection]]:
    made = connection_factory(wait_s=DEADLINE_S)
    with _connect(tmp_path, made) as setup:
        setup.execute("PRAGMA journal_mode=WAL")
        setup.execute("CREATE TABLE t (x INTEGER PRIMARY KEY)")
    yield made


def _connect(tmp_path: Path, factory: type[sqlite3.Connection]) -> Any:
    # timeout=0: SQLite's own busy handler gives up at once, so any wait seen is the queue's.
    return sqlite3.connect(tmp_path / "db.sqlite", timeout=0, check_same_thread=False, factory=factory)


def test_a_second_writer_waits_for_the_first_to_commit_instead_of_failing(
    tmp_path: Path, factory: type[QueuedWriterConnection]
) -> None:
    factory.writer = watched = WatchedLock()  # type: ignore[assignment]
    first, second = _connect(tmp_path, factory), _connect(tmp_path, factory)
    first.execute("INSERT INTO t VALUES (1)")  # holds SQLite's write lock until it commits
    outcome: dict[str, Any] = {}

    def write() -> None:
        try:
            second.execute("INSERT INTO t VALUES (2)")
            second.commit()
            outcome["ok"] = True
        except sqlite3.Error as exc:  # without the queue: "database is locked", at once
            outcome["error"] = exc

    writer = threading.Thread(target=write)
    writer.start()
    assert watched.waiting.wait(DEADLINE_S), outcome.get("error", "the second writer never waited")
    assert writer.is_alive() and not outcome
    first.commit()
    writer.join(DEADLINE_S)
    assert outcome == {"ok": True}
    assert [row[0] for row in first.execute("SELECT x FROM t ORDER BY x")] == [1, 2]
    assert not watched.locked()


def test_reads_never_wait_for_a_writer(tmp_path: Path, factory: type[QueuedWriterConnection]) -> None:
    writer, reader = _connect(tmp_path, factory), _connect(tmp_path, factory)
    writer.execute("INSERT INTO t VALUES (1)")
    assert factory.writer.locked()
    assert reader.execute("SELECT count(*) FROM t").fetchone() == (0,)  # the last committed state
    writer.commit()
    assert reader.execute("SELECT count(*) FROM t").fetchone() == (1,)


@pytest.mark.parametrize("end", ["commit", "rollback", "close", "executescript"])
def test_the_lock_is_let_go_when_the_transaction_ends(
    tmp_path: Path, factory: type[QueuedWriterConnection], end: str
) -> None:
    connection = _connect(tmp_path, factory)
    connection.execute("UPDATE t SET x = x + 1")
    connection.execute("INSERT INTO t VALUES (5)")  # the same transaction: taken once
    assert factory.writer.locked()
    if end == "executescript":  # commits what is open first, then runs the script on SQLite's lock
        connection.executescript("SELECT 1;")
    else:
        getattr(connection, end)()
    assert not factory.writer.locked()
    other = _connect(tmp_path, factory)
    other.execute("INSERT INTO t VALUES (6)")
    other.commit()
    kept = end in ("commit", "executescript")
    assert other.execute("SELECT count(*) FROM t").fetchone() == ((2,) if kept else (1,))


def test_a_failed_statement_keeps_the_lock_only_while_its_transaction_is_open(
    tmp_path: Path, factory: type[QueuedWriterConnection]
) -> None:
    connection = _connect(tmp_path, factory)
    with pytest.raises(sqlite3.OperationalError):
        connection.execute("INSERT INTO missing VALUES (1)")  # fails before any transaction opens
    assert not connection.in_transaction and not factory.writer.locked()
    connection.execute("INSERT INTO t VALUES (1)")
    with pytest.raises(sqlite3.IntegrityError):
        connection.executemany("INSERT INTO t VALUES (?)", [(2,), (1,)])  # inside the open transaction
    assert connection.in_transaction and factory.writer.locked()
    connection.rollback()
    assert not factory.writer.locked()


def test_waiting_for_the_lock_ends_as_sqlite_does(tmp_path: Path) -> None:
    impatient = connection_factory(wait_s=0.05)
    first, second = _connect(tmp_path, impatient), _connect(tmp_path, impatient)
    first.execute("CREATE TABLE t (x INTEGER)")
    first.execute("INSERT INTO t VALUES (1)")
    with pytest.raises(sqlite3.OperationalError, match="database is locked"):
        second.execute("INSERT INTO t VALUES (2)")
    assert not second.in_transaction
    first.commit()
    second.execute("INSERT INTO t VALUES (2)")
    second.commit()


@pytest.mark.parametrize(
    "sql",
    [
        "INSERT INTO t VALUES (1)",
        "  insert into t values (1)",
        "/* a comment */ UPDATE t SET x = 1",
        "-- a comment\nDELETE FROM t",
        "REPLACE INTO t VALUES (1)",
        "UPDATE t SET x = 2 RETURNING x",
        "SELECT * FROM t",
        "WITH q AS (SELECT 1) SELECT * FROM q",
        "PRAGMA user_version",
        "CREATE TABLE u (x INTEGER)",
        "insertion",
    ],
)
def test_opens_a_write_transaction_exactly_where_the_sqlite3_module_does(tmp_path: Path, sql: str) -> None:
    plain = sqlite3.connect(tmp_path / "plain.sqlite")
    plain.execute("CREATE TABLE t (x INTEGER)")
    plain.commit()
    with contextlib.suppress(sqlite3.OperationalError):  # "insertion" is not SQL: still compared
        plain.execute(sql)
    assert opens_write_transaction(sql) == plain.in_transaction


def test_each_sqlite_engine_queues_its_own_writers(tmp_path: Path) -> None:
    one, two = Database(f"sqlite:///{tmp_path}/one.db"), Database(f"sqlite:///{tmp_path}/two.db")
    try:
        with one.engine.connect() as a, one.engine.connect() as b, two.engine.connect() as c:
            connections: list[Any] = [conn.connection.dbapi_connection for conn in (a, b, c)]
        assert all(isinstance(conn, QueuedWriterConnection) for conn in connections)
        locks = [conn.writer for conn in connections]
        assert locks[0] is locks[1] and locks[0] is not locks[2]
        with one.transaction() as session:
            session.execute(text("CREATE TABLE t (x INTEGER)"))
        with one.transaction() as session:
            session.execute(text("INSERT INTO t VALUES (1)"))
            assert locks[0].locked()
        assert not locks[0].locked()
    finally:
        one.dispose()
        two.dispose()
