from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import CursorResult, Table, bindparam, case, func, or_, select, update
from sqlalchemy.orm import Session, defer

from app.kit.db import backend_insert, prepared
from app.progress import repository as progress
from app.progress import rules
from app.submissions.models import COPY_KEY_PREFIX, FINISHED, QUEUED, RUNNING, Submission, SubmissionGate


def insert_new(
    session: Session,
    *,
    user_id: int,
    problem_id: int,
    problem_version_id: int | None,
    mode: str,
    code: str,
    created_at: datetime,
    idempotency_key: str | None,
    custom_input: dict[str, Any] | None,
) -> Submission | None:
    """Store a queued submission; None if the user already has one with this idempotency key.

    One ``INSERT … ON CONFLICT DO NOTHING RETURNING id`` (no savepoint, no ORM flush); the row
    is returned as a transient :class:`Submission` that no session holds.
    """
    values = {
        "user_id": user_id,
        "problem_id": problem_id,
        "problem_version_id": problem_version_id,
        "mode": mode,
        "code": code,
        "status": QUEUED,
        "created_at": created_at,
        "idempotency_key": idempotency_key,
        "custom_input": custom_input,
    }
    statement = prepared(session, "submissions.insert", _insert_statement)
    new_id = session.execute(statement, {f"v_{k}": v for k, v in values.items()}).scalar()
    return Submission(id=new_id, **values) if new_id is not None else None


_INSERTED = ("user_id", "problem_id", "problem_version_id", "mode", "code", "status", "created_at",
             "idempotency_key", "custom_input")  # fmt: skip


def _insert_statement(backend: str) -> Any:
    table: Table = Submission.__table__  # type: ignore[assignment]
    return (
        backend_insert(backend)(table)
        .values({name: bindparam(f"v_{name}", type_=table.c[name].type) for name in _INSERTED})
        .on_conflict_do_nothing(index_elements=["user_id", "idempotency_key"])
        .returning(table.c.id)
    )


def add(session: Session, submission: Submission) -> Submission:
    session.add(submission)
    session.flush()
    return submission


def get(session: Session, submission_id: int) -> Submission | None:
    return session.get(Submission, submission_id)


def unfinished_ids(session: Session) -> list[int]:
    stmt = select(Submission.id).where(Submission.status.in_((QUEUED, RUNNING))).order_by(Submission.id)
    return list(session.scalars(stmt))


def unfinished(session: Session) -> list[tuple[int, str, datetime, datetime | None]]:
    """(id, status, created_at, started_at) of every queued or running submission, oldest first."""
    stmt = (
        select(Submission.id, Submission.status, Submission.created_at, Submission.started_at)
        .where(Submission.status.in_((QUEUED, RUNNING)))
        .order_by(Submission.id)
    )
    return [(sid, status, created, started) for sid, status, created, started in session.execute(stmt)]


def unfinished_counts(session: Session) -> dict[str, int]:
    """How many submissions are queued and how many running."""
    stmt = (
        select(Submission.status, func.count(Submission.id))
        .where(Submission.status.in_((QUEUED, RUNNING)))
        .group_by(Submission.status)
    )
    counts = {QUEUED: 0, RUNNING: 0}
    counts.update({status: int(n) for status, n in session.execute(stmt)})
    return counts


def requeue_running(session: Session) -> None:
    session.execute(
        update(Submission).where(Submission.status == RUNNING).values(status=QUEUED, started_at=None)
    )


def mark_running(session: Session, submission_id: int, now: datetime) -> bool:
    """queued/running -> running; False if the submission is finished (or gone)."""
    result: CursorResult[Any] = session.execute(  # type: ignore[assignment]
        update(Submission)
        .where(Submission.id == submission_id, Submission.status != FINISHED)
        .values(status=RUNNING, started_at=now)
    )
    return result.rowcount == 1


def reopen(session: Session, submission_id: int) -> bool:
    """finished -> queued with its verdict cleared, for an operator's re-judge; False otherwise."""
    result: CursorResult[Any] = session.execute(  # type: ignore[assignment]
        update(Submission)
        .where(Submission.id == submission_id, Submission.status == FINISHED)
        .values(
            status=QUEUED,
            verdict=None,
            passed=None,
            total=None,
            cases=None,
            message=None,
            time_ms=None,
            started_at=None,
            finished_at=None,
        )
        .execution_options(synchronize_session=False)
    )
    return result.rowcount == 1


_TABLE: Table = Submission.__table__  # type: ignore[assignment]
_VERDICT_COLUMNS = ("verdict", "passed", "total", "cases", "message", "time_ms", "runtime", "finished_at")
# Built once, executed with their values (``app.kit.db.prepared`` says why and where). The ``v_`` names:
# a bind parameter may not be named after a column an UPDATE sets.
_FINISH = (
    update(_TABLE)
    .where(_TABLE.c.id == bindparam("v_id"), _TABLE.c.status != FINISHED)
    .values(
        {"status": FINISHED}
        | {name: bindparam(f"v_{name}", type_=_TABLE.c[name].type) for name in _VERDICT_COLUMNS}
    )
    .returning(*[c for c in _TABLE.c if c.name != "code"])
)
_CLAIM = (
    update(_TABLE)
    .where(_TABLE.c.id == bindparam("v_id"), _TABLE.c.status != FINISHED)
    .values(status=RUNNING, started_at=bindparam("v_now", type_=_TABLE.c.started_at.type))
    .returning(*[_TABLE.c[n] for n in ("problem_id", "problem_version_id", "mode", "code", "custom_input")])
)


def finish(session: Session, submission_id: int, values: dict[str, Any]) -> Submission | None:
    """Record the final verdict once: a finished submission is never overwritten.

    ``values`` has each of the verdict's columns (``_VERDICT_COLUMNS``). Returns the row as it now
    stands, read back by the UPDATE itself (``RETURNING``) into a transient :class:`Submission`
    that no session holds (its ``code`` is left out), or None if the submission was finished
    already or is gone.
    """
    params = {"v_id": submission_id} | {f"v_{name}": values[name] for name in _VERDICT_COLUMNS}
    row = session.execute(_FINISH, params).first()
    return Submission(**row._mapping) if row is not None else None


@dataclass(frozen=True)
class Claim:
    """What judging needs of a submission it has just marked running."""

    problem_id: int
    problem_version_id: int
    mode: str
    code: str
    custom_input: dict[str, Any] | None


def claim(session: Session, submission_id: int, now: datetime) -> Claim | None:
    """queued/running -> running, in one statement that also reads what the job needs.

    None if the submission is finished (or gone). Core, not the ORM: no identity map, no reload.
    """
    row = session.execute(_CLAIM, {"v_id": submission_id, "v_now": now}).first()
    return Claim(*row) if row is not None else None


def solved_problem_ids(session: Session, user_id: int) -> set[int]:
    return progress.solved_ids(session, user_id)


def has_accepted(session: Session, user_id: int, problem_id: int) -> bool:
    return progress.is_solved(session, user_id, problem_id)


def attempts_by_problem(session: Session, user_id: int) -> list[tuple[int, bool]]:
    """(problem id, solved) for every problem the user has submitted to."""
    return list(progress.marks(session, user_id).items())


def first_solve_at(session: Session, user_id: int, problem_id: int, excluding: int) -> datetime | None:
    """When the learner's earliest solving submission other than ``excluding`` was made."""
    stmt = select(func.min(Submission.created_at)).where(
        Submission.user_id == user_id,
        Submission.problem_id == problem_id,
        Submission.id != excluding,
        _practice(),
        rules.solved_sql(Submission.mode, Submission.verdict),
    )
    value = session.scalar(stmt)
    return _aware(value) if value is not None else None


def _practice() -> Any:
    """Submissions that are the learner's own practice (not a course regrade's copies)."""
    return or_(Submission.idempotency_key.is_(None), ~Submission.idempotency_key.startswith(COPY_KEY_PREFIX))


_BY_KEY = select(Submission).where(
    Submission.user_id == bindparam("user_id"), Submission.idempotency_key == bindparam("key")
)


def get_by_idempotency_key(session: Session, user_id: int, key: str) -> Submission | None:
    return session.scalars(_BY_KEY, {"user_id": user_id, "key": key}).first()


def list_own(
    session: Session,
    user_id: int,
    *,
    problem_id: int | None,
    verdict: str | None,
    before_id: int | None,
    limit: int,
) -> Sequence[Submission]:
    """The user's submissions, newest first, keyset-paginated by id (summary columns only)."""
    stmt = (
        select(Submission)
        .options(defer(Submission.code), defer(Submission.cases), defer(Submission.runtime))
        .where(Submission.user_id == user_id)
    )
    if problem_id is not None:
        stmt = stmt.where(Submission.problem_id == problem_id)
    if verdict is not None:
        stmt = stmt.where(Submission.verdict == verdict)
    if before_id is not None:
        stmt = stmt.where(Submission.id < before_id)
    return session.scalars(stmt.order_by(Submission.id.desc()).limit(limit)).all()


_COUNT_SINCE = select(func.count(_TABLE.c.id), func.min(_TABLE.c.created_at)).where(
    _TABLE.c.user_id == bindparam("user_id"),
    _TABLE.c.created_at >= bindparam("since", type_=_TABLE.c.created_at.type),
)  # on the table: columns only (``app.kit.db.prepared`` says why)


def take_gate(session: Session, user_id: int, now: datetime) -> None:
    """Lock the user's submission gate until this transaction ends (made on first use).

    One ``INSERT … ON CONFLICT (user_id) DO UPDATE``: on PostgreSQL a concurrent one of the same
    user waits on the row until this transaction commits or rolls back; on SQLite it is a write,
    so it takes the database's one writer lock. Either way, what this transaction reads next
    includes every submission committed by the user's earlier gate holders.
    """
    session.execute(prepared(session, "submissions.gate", _gate_statement), {"user_id": user_id, "now": now})


def _gate_statement(backend: str) -> Any:
    table: Table = SubmissionGate.__table__  # type: ignore[assignment]
    values = {"user_id": bindparam("user_id"), "last_at": bindparam("now", type_=table.c.last_at.type)}
    insert = backend_insert(backend)(table).values(values)
    return insert.on_conflict_do_update(
        index_elements=[table.c.user_id], set_={"last_at": insert.excluded.last_at}
    )


def count_since(session: Session, user_id: int, since: datetime) -> tuple[int, datetime | None]:
    """How many submissions the user made since ``since``, and the oldest of them."""
    count, oldest = session.execute(_COUNT_SINCE, {"user_id": user_id, "since": since}).one()
    return int(count or 0), oldest


# --- progress over time (the account page's chart) ------------------------------------------------


def first_solves(session: Session, user_id: int) -> list[datetime]:
    """When each problem the user solved was first accepted (submit mode), oldest first."""
    return [_aware(at) for at in progress.first_solves(session, user_id)]


def activity_since(session: Session, user_id: int, since: datetime) -> list[tuple[datetime, str | None]]:
    """``(created_at, verdict)`` of every run and submit of the user since ``since``."""
    stmt = select(Submission.created_at, Submission.verdict).where(
        Submission.user_id == user_id, Submission.created_at >= since
    )
    return [(_aware(at), verdict) for at, verdict in session.execute(stmt)]


def _aware(value: datetime | str) -> datetime:
    """Aggregates over timestamps come back as naive datetimes or text on SQLite; they are UTC."""
    if isinstance(value, str):
        value = datetime.fromisoformat(value)
    return value if value.tzinfo is not None else value.replace(tzinfo=UTC)


# --- rebuilding the maintained progress state from the submissions table ---------------------------


def progress_from_submissions(
    session: Session,
) -> tuple[list[progress.LearnerRow], list[progress.StatsRow]]:
    """What ``app.progress`` should hold, aggregated from every practice submission (slow; for rebuilds)."""
    solved = rules.solved_sql(Submission.mode, Submission.verdict)
    learner_stmt = (
        select(
            Submission.user_id,
            Submission.problem_id,
            func.count(),
            func.min(case((solved, Submission.created_at), else_=None)),
            func.max(Submission.created_at),
        )
        .where(_practice())
        .group_by(Submission.user_id, Submission.problem_id)
        .order_by(Submission.user_id, Submission.problem_id)
    )
    learners = [
        (u, p, int(n), _aware(s) if s is not None else None, _aware(last))
        for u, p, n, s, last in session.execute(learner_stmt)
    ]
    stats_stmt = (
        select(
            Submission.problem_id,
            func.count(),
            func.sum(case((solved, 1), else_=0)),
        )
        .where(_practice(), rules.judged_sql(Submission.mode, Submission.verdict))
        .group_by(Submission.problem_id)
        .order_by(Submission.problem_id)
    )
    stats = [(p, int(j), int(a or 0)) for p, j, a in session.execute(stats_stmt)]
    return learners, stats


def history_page(
    session: Session, user_id: int, problem_id: int, *, before_id: int | None, limit: int
) -> Sequence[Submission]:
    """The user's submissions on one problem, newest (highest id) first, keyset-paged by id below
    ``before_id``: one range of ix_submissions_user_problem_id (user_id, problem_id, id)."""
    stmt = select(Submission).where(Submission.user_id == user_id, Submission.problem_id == problem_id)
    if before_id is not None:
        stmt = stmt.where(Submission.id < before_id)
    return session.scalars(stmt.order_by(Submission.id.desc()).limit(limit)).all()
