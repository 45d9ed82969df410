"""One writer at a time per SQLite database in this process, queued on a lock instead of polled.

SQLite lets one connection write at a time. Another connection that starts writing meanwhile gets
``SQLITE_BUSY``, and its busy handler (``busy_timeout``) sleeps and tries again: after 1, 2, 5,
10, 15, 20, 25 … ms, however soon the writer commits. Under concurrent judging every verdict
writes three times (the request's submission, the judge's claim, the judge's verdict) from
different threads, so writers meet often: through ``bench.web`` with 16 learners the web process
slept on the lock 274 times in 10 s (about one verdict in three; 1.2 ms median, up to 15 ms,
0.56 s in all) for a lock held well under a millisecond (docs/benchmarks.md, the fourteenth pass).

Here every connection of one engine takes the engine's writer lock before the statement that
opens its write transaction, and lets it go when that transaction ends (commit, rollback,
close): a waiting writer wakes the moment the last one commits. The sqlite3 module opens that
transaction itself, implicitly, right before an ``INSERT``, ``UPDATE``, ``DELETE`` or
``REPLACE`` run outside one (its "legacy" transaction control, which SQLAlchemy's pysqlite
dialect keeps), so that is where the lock is taken; reads never take it (with WAL they never
wait for a writer). Waiting for the lock is bounded by the connection's busy timeout and ends
as SQLite's own wait does, with ``sqlite3.OperationalError: database is locked``. Other
processes writing to the same file (the CLI, a migration) still meet SQLite's lock and its
busy timeout, as before, as does any write this process starts another way (an explicit
``BEGIN``, DDL): nothing here is needed for correctness, only for speed.
"""

from __future__ import annotations

import re
import sqlite3
import threading
from collections.abc import Callable, Iterable
from typing import Any

# The statements before which the sqlite3 module opens a transaction (CPython's
# Modules/_sqlite/statement.c: the first keyword, after blanks and comments).
_OPENS_WRITE = re.compile(
    r"(?:\s+|--[^\n]*(?:\n|$)|/\*.*?(?:\*/|$))*(?:insert|update|delete|replace)\b", re.I | re.S
)
Parameters = Any  # what sqlite3 takes: a sequence or a mapping of values


def opens_write_transaction(sql: str) -> bool:
    """Whether the sqlite3 module opens a transaction before ``sql`` when none is open."""
    return _OPENS_WRITE.match(sql) is not None


class QueuedWriterConnection(sqlite3.Connection):
    """A sqlite3 connection whose write transactions wait on its class's ``writer`` lock.

    Made per database by :func:`connection_factory`; never instantiated from this base.
    """

    writer: threading.Lock
    wait_s: float
    _holds = False

    def cursor(self, factory: Any = None) -> Any:  # sqlite3's own signature: a cursor class
        return super().cursor(factory or QueuedWriterCursor)

    # The shortcuts make their cursor in C, not through cursor(): routed through ours.
    def execute(self, sql: str, parameters: Parameters = (), /) -> Any:
        return self.cursor().execute(sql, parameters)

    def executemany(self, sql: str, seq_of_parameters: Iterable[Parameters], /) -> Any:
        return self.cursor().executemany(sql, seq_of_parameters)

    def executescript(self, script: str, /) -> Any:
        try:
            return super().executescript(script)  # commits first: its writes meet SQLite's lock
        finally:
            self._after()

    def _before(self, sql: str) -> bool:
        """Take the writer lock if ``sql`` is about to open a write transaction; True if taken."""
        if self._holds or self.in_transaction or not opens_write_transaction(sql):
            return False
        if not self.writer.acquire(timeout=self.wait_s):
            raise sqlite3.OperationalError("database is locked")
        self._holds = True
        return True

    def _after(self) -> None:
        """Let the lock go once no transaction is open (it ended, or the statement never opened one)."""
        if self._holds and not self.in_transaction:
            self._holds = False
            self.writer.release()

    def commit(self) -> None:
        try:
            super().commit()
        finally:
            self._after()

    def rollback(self) -> None:
        try:
            super().rollback()
        finally:
            self._after()

    def close(self) -> None:
        try:
            super().close()
        finally:
            if self._holds:  # closing ends the transaction (in_transaction can no longer be asked)
                self._holds = False
                self.writer.release()


class QueuedWriterCursor(sqlite3.Cursor):
    connection: QueuedWriterConnection

    def execute(self, sql: str, parameters: Parameters = (), /) -> QueuedWriterCursor:
        return self._queued(super().execute, sql, parameters)

    def executemany(self, sql: str, seq_of_parameters: Iterable[Parameters], /) -> QueuedWriterCursor:
        return self._queued(super().executemany, sql, seq_of_parameters)

    def _queued(self, run: Callable[[str, Any], object], sql: str, arguments: Any) -> QueuedWriterCursor:
        """``run(sql, arguments)`` with the writer lock taken first if ``sql`` opens a write."""
        taken = self.connection._before(sql)
        try:
            run(sql, arguments)
        finally:
            if taken:
                self.connection._after()
        return self


def connection_factory(wait_s: float) -> type[QueuedWriterConnection]:
    """A connection class for one database (pass it as ``sqlite3.connect(factory=...)``): its
    connections share one writer lock, and wait for it at most ``wait_s`` (the busy timeout)."""
    attributes = {"writer": threading.Lock(), "wait_s": wait_s}
    return type("QueuedWriterConnection", (QueuedWriterConnection,), attributes)
