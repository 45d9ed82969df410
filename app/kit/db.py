"""Database plumbing: the declarative base, engines, and the request's unit of work.

The request session dependency is the only commit point for requests: services ``flush()``,
``get_session`` commits when the route returns and then runs the callbacks registered with
:func:`on_commit` (so a job is dispatched only once its row is visible to other connections).
Background work (the judge threads, a future worker) opens its own short sessions with
:meth:`Database.transaction`.

Connections: the one place their arithmetic is written (docs/architecture.md sums it up). A process
opens at most ``pool_size`` connections (``TORCHDRILL_DB_POOL_SIZE``, 20), shared out as

    pool_size = request slots + judge threads (``judge_workers``) + SPARE_CONNECTIONS

* **Request slots** (:func:`request_slots`; ``app.kit.db_slots``). A request takes a slot on the
  event loop before any of its database work (the routers' dependency, and ``get_session``'s) and
  gives it back after its session's teardown; between two worker-thread hops it holds at most one
  connection. So requests hold at most ``slots`` connections together, a request's checkout finds
  one free, and no thread ever blocks on the pool for a connection that a request waiting for a
  worker thread holds: the pool and anyio's threadpool (40 threads, kept ``THREADS_BEYOND_SLOTS``
  above the slots) cannot deadlock, however many requests are in flight.
* **Judge threads** (the embedded judge; unused with a broker). Each opens short transactions of its
  own, one connection at a time, and never waits for a request's thread: the pool always has room
  for them, whatever the requests do, and they never hold a connection a request needs.
* **Spare**: one-hop work outside a slot, which takes a connection and gives it back in the same
  worker thread: the reads of an answer produced after its route (``?wait=true``), ``/healthz``,
  ``/metrics``, and a failed log-in's record written beside the request's own session. Such work
  cannot deadlock anything; past the spare connections it waits for one of them, for as long as a
  short query takes.

The recorder process (broker mode) has a pool of its own, sized ``recorder_concurrency`` + 1: its
handlers and the sweeper, one connection each at a time. On PostgreSQL, the server's ``max_connections`` must
cover every process: web replicas x ``TORCHDRILL_DB_POOL_SIZE`` + the recorder's pool + migrations.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypeVar, cast

from sqlalchemy import DateTime, Engine, MetaData, TypeDecorator, create_engine, event, text
from sqlalchemy.engine import make_url
from sqlalchemy.orm import DeclarativeBase, Session, sessionmaker

from app.kit.sqlite_writers import connection_factory

T = TypeVar("T")

NAMING_CONVENTION = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


def utcnow() -> datetime:
    return datetime.now(UTC)


class UTCDateTime(TypeDecorator[datetime]):
    """Timezone-aware UTC datetimes on every backend (SQLite drops the offset otherwise)."""

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Any) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError("naive datetimes are not stored; use app.kit.db.utcnow()")
        return value.astimezone(UTC)

    def process_result_value(self, value: datetime | None, dialect: Any) -> datetime | None:
        if value is None:
            return None
        return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING_CONVENTION)


def _prepare_sqlite_path(url: str) -> None:
    parsed = make_url(url)
    if parsed.get_backend_name() == "sqlite" and parsed.database and parsed.database != ":memory:":
        Path(parsed.database).expanduser().parent.mkdir(parents=True, exist_ok=True)


DEFAULT_POOL_SIZE = 20
SQLITE_BUSY_TIMEOUT_S = 15.0  # how long a SQLite writer waits for another one before "database is locked"
SPARE_CONNECTIONS = 2  # for one-hop work outside the request slots (the module docstring)


def request_slots(pool_size: int, judge_threads: int) -> int:
    """How many requests may hold database connections at once (the module docstring's arithmetic)."""
    slots = pool_size - judge_threads - SPARE_CONNECTIONS
    if slots < 1:
        raise ValueError(
            f"a pool of {pool_size} connections leaves no room for requests beside {judge_threads} "
            f"judge threads and {SPARE_CONNECTIONS} spare connections: raise TORCHDRILL_DB_POOL_SIZE "
            f"to at least {judge_threads + SPARE_CONNECTIONS + 1}"
        )
    return slots


def make_engine(url: str, pool_size: int = DEFAULT_POOL_SIZE) -> Engine:
    """An engine for ``url`` opening at most ``pool_size`` connections (all kept once opened).

    SQLite files get their folder, WAL, foreign keys and a busy timeout, and the engine's writers
    queue on a lock of its own instead of SQLite's busy sleeps (``app.kit.sqlite_writers``).
    """
    _prepare_sqlite_path(url)
    backend = make_url(url).get_backend_name()
    if backend == "sqlite":
        engine = create_engine(
            url,
            connect_args={
                "check_same_thread": False,
                "timeout": SQLITE_BUSY_TIMEOUT_S,  # sqlite3 sets the busy timeout from it
                "factory": connection_factory(SQLITE_BUSY_TIMEOUT_S),
            },
            pool_size=pool_size,
            max_overflow=0,
        )

        @event.listens_for(engine, "connect")
        def _sqlite_pragmas(dbapi_conn: Any, _record: Any) -> None:
            cur = dbapi_conn.cursor()
            cur.execute("PRAGMA foreign_keys=ON")
            cur.execute("PRAGMA journal_mode=WAL")
            # With WAL, NORMAL syncs at checkpoints instead of at every commit: a commit costs no
            # fsync (2-3 ms each, 3 per submission), the database stays consistent after any crash,
            # and only a power loss can undo the last commits (docs/benchmarks.md).
            cur.execute("PRAGMA synchronous=NORMAL")
            cur.close()

        return engine
    return create_engine(url, pool_pre_ping=True, pool_size=pool_size, max_overflow=0)


class Database:
    """An engine and its session factory; one per app (tests make one per database backend)."""

    def __init__(self, url: str, pool_size: int = DEFAULT_POOL_SIZE) -> None:
        self.url = url
        self.pool_size = pool_size
        self.engine = make_engine(url, pool_size)
        self.sessionmaker = sessionmaker(self.engine, expire_on_commit=False)

    @contextmanager
    def transaction(self) -> Iterator[Session]:
        """A session that commits on success and rolls back on error, then runs on_commit hooks."""
        session = self.sessionmaker()
        try:
            yield session
            session.commit()
        except BaseException:
            session.rollback()
            session.info.pop(_HOOKS_KEY, None)
            raise
        finally:
            session.close()
        run_commit_hooks(session)

    def ping(self) -> None:
        with self.engine.connect() as conn:
            conn.execute(text("SELECT 1"))

    def dispose(self) -> None:
        self.engine.dispose()


_HOOKS_KEY = "torchdrill_on_commit"


def on_commit(session: Session, callback: Callable[[], None]) -> None:
    """Run ``callback`` after the session's transaction commits (never if it rolls back)."""
    session.info.setdefault(_HOOKS_KEY, []).append(callback)


def release_connection(session: Session) -> None:
    """End the session's transaction before slow work that needs no database (the sandbox
    validating an instructor's problem, seconds): its pooled connection goes back to the pool
    meanwhile instead of sitting idle in a transaction (which PostgreSQL keeps a snapshot for), and
    the next statement opens a new one. What the session wrote so far is committed here, so call
    it only where nothing written yet must stay atomic with what comes after. Its commit hooks
    still run once, at the request's end. The request keeps its database slot
    (``app.kit.db_slots``): the slot bounds requests, the pool bounds connections."""
    session.commit()


def run_commit_hooks(session: Session) -> None:
    for callback in session.info.pop(_HOOKS_KEY, []):
        callback()


def upgrade_database(url: str) -> None:
    """Build or migrate the schema to the latest revision, exactly as ``alembic upgrade head``."""
    from alembic import command
    from alembic.config import Config

    root = Path(__file__).resolve().parents[2]
    cfg = Config(str(root / "alembic.ini"))
    cfg.set_main_option("script_location", str(root / "migrations"))
    cfg.set_main_option("sqlalchemy.url", url.replace("%", "%%"))
    _prepare_sqlite_path(url)
    command.upgrade(cfg, "head")


_PREPARED: dict[tuple[str, str], Any] = {}


def prepared(session: Session, name: str, build: Callable[[str], T]) -> T:
    """The statement ``name``, built once per database backend by ``build(backend_name)``.

    Building a SQLAlchemy statement (and its cache key) costs tens to hundreds of microseconds of
    Python each time; a statement built once with ``bindparam`` placeholders and executed with its
    values costs neither. For the statements on a verdict's path (docs/benchmarks.md).

    The rule, for every module: a statement built once that is the same on every backend is a
    module constant (``_BY_KEY = select(...).where(... == bindparam("key"))``); one that depends on
    the backend (an upsert through :func:`backend_insert`) is built here, on first use per backend.
    Where the caller needs columns, not ORM instances, the statement is built on the tables
    (``Model.__table__``), not the mapped classes: executed through a mapped class, the ORM
    derives a DML statement again on every execution (its bulk path) and compiles a select through
    its own step; on the tables the compiled statement comes from the cache (the ninth pass in
    docs/benchmarks.md: the verdict path's three progress writes ~400 -> ~100 µs).
    """
    backend = session.get_bind().dialect.name
    statement = _PREPARED.get((name, backend))
    if statement is None:
        statement = _PREPARED[(name, backend)] = build(backend)
    return cast(T, statement)


def backend_insert(backend: str) -> Any:
    """``insert`` of the backend's dialect (``on_conflict_do_update`` and ``excluded``)."""
    if backend == "postgresql":
        from sqlalchemy.dialects.postgresql import insert as pg_insert

        return pg_insert
    from sqlalchemy.dialects.sqlite import insert as sqlite_insert

    return sqlite_insert
