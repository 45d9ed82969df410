"""A verdict's update of the state in a constant number of statements (``rules.step``).

When the verdict's submission is later than every one counted in the student's row (the usual
case: work is judged in the order it is made), the row is read, stepped and written back, and the
failure keys and kinds of a failed attempt are added to the student's rows and the class's totals
by upserts — five or six statements, whatever the student's history. Otherwise (an older
submission judged late, a re-judge) the caller recomputes the student's rows on the problem.
The caller holds the student's window row lock (``repository.lock_windows``), so two verdicts of
one student are applied one after the other.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import Table, and_, select, update
from sqlalchemy.orm import Session

from app.analytics import rules
from app.analytics.models import (
    AnalyticsCaseTotal,
    AnalyticsFailure,
    AnalyticsKind,
    AnalyticsKindTotal,
    AnalyticsProgress,
)
from app.kit.db import backend_insert

_PROGRESS: Table = AnalyticsProgress.__table__  # type: ignore[assignment]
_FAILURES: Table = AnalyticsFailure.__table__  # type: ignore[assignment]
_KINDS: Table = AnalyticsKind.__table__  # type: ignore[assignment]
_CASE_TOTALS: Table = AnalyticsCaseTotal.__table__  # type: ignore[assignment]
_KIND_TOTALS: Table = AnalyticsKindTotal.__table__  # type: ignore[assignment]
_FIELDS = [c.name for c in _PROGRESS.c if c.name not in ("assignment_id", "problem_id", "user_id")]


def apply(session: Session, assignment_id: int, user_id: int, problem_id: int, seen: rules.Seen) -> bool:
    """Add one counted submission to the student's rows; False (nothing written) when it is not
    later than every submission already counted there (the caller recomputes instead)."""
    p = _PROGRESS.c
    ids = {"assignment_id": assignment_id, "problem_id": problem_id, "user_id": user_id}
    where = and_(p.assignment_id == assignment_id, p.problem_id == problem_id, p.user_id == user_id)
    row = session.execute(select(*(p[f] for f in _FIELDS)).where(where)).first()
    before = rules.Summary(**dict(zip(_FIELDS, row, strict=True))) if row else rules.Summary()
    if before.last_at is not None and seen.created_at <= before.last_at:
        return False
    done = rules.step(before, seen)
    values = {f: getattr(done.progress, f) for f in _FIELDS}
    if row is None:
        session.execute(_PROGRESS.insert().values(**ids, **values))
    else:
        session.execute(update(_PROGRESS).where(where).values(**values))
    backend = session.get_bind().dialect.name
    if done.failures:
        _add_failures(session, backend, ids, sorted(done.failures))
    if done.kinds:
        _add_kinds(session, backend, ids, sorted(done.kinds))
    return True


def _upsert(backend: str, table: Table, rows: list[dict[str, Any]], keys: list[str], add: list[str]) -> Any:
    """One multi-row ``INSERT … ON CONFLICT DO UPDATE`` adding ``add`` columns to the existing row."""
    stmt = backend_insert(backend)(table).values(rows)
    return stmt.on_conflict_do_update(
        index_elements=keys, set_={c: table.c[c] + stmt.excluded[c] for c in add}
    )


def _add_failures(session: Session, backend: str, ids: dict[str, int], keys: list[str]) -> None:
    """Each key once more for the student; the class's totals gain the attempt, and the student
    when the key is new for them (its count is now 1)."""
    stmt = _upsert(
        backend, _FAILURES, [ids | {"key": k, "count": 1} for k in keys],
        ["assignment_id", "problem_id", "user_id", "key"], ["count"],
    ).returning(_FAILURES.c.key, _FAILURES.c.count)  # fmt: skip
    counts = {str(k): int(n) for k, n in session.execute(stmt)}
    totals = [
        {"assignment_id": ids["assignment_id"], "problem_id": ids["problem_id"], "key": k,
         "students": 1 if counts[k] == 1 else 0, "attempts": 1}
        for k in keys
    ]  # fmt: skip
    session.execute(
        _upsert(
            backend, _CASE_TOTALS, totals, ["assignment_id", "problem_id", "key"], ["students", "attempts"]
        )
    )


def _add_kinds(session: Session, backend: str, ids: dict[str, int], kinds: list[Any]) -> None:
    rows = [ids | {"hour": hour, "kind": kind, "count": 1} for hour, kind in kinds]
    session.execute(
        _upsert(backend, _KINDS, rows, ["assignment_id", "problem_id", "user_id", "hour", "kind"], ["count"])
    )
    totals = [{k: v for k, v in r.items() if k != "user_id"} for r in rows]
    session.execute(
        _upsert(backend, _KIND_TOTALS, totals, ["assignment_id", "problem_id", "hour", "kind"], ["count"])
    )
