"""A verdict's update of the state in a constant number of statements (``rules.step``).

When the verdict's submission is later than every one counted in the student's row (the usual
case: work is judged in the order it is made), the row is read, stepped and written back, and the
failure keys and kinds of a failed attempt are added to the student's rows and the class's totals
by upserts — at most seven statements, built once, whatever the student's history. Otherwise (an older
submission judged late, a re-judge) the caller recomputes the student's rows on the problem.
The caller holds the student's window row lock (``windows.lock_windows``), so two verdicts of
one student are applied one after the other.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import Table, and_, bindparam, select, update
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


_P = _PROGRESS.c
_WHERE = and_(
    _P.assignment_id == bindparam("a"), _P.problem_id == bindparam("p"), _P.user_id == bindparam("u")
)
# Built once (``app.kit.db.prepared`` says why: on every verdict, compiling is most of the cost).
_READ = select(*(_P[f] for f in _FIELDS)).where(_WHERE)
_UPDATE = update(_PROGRESS).where(_WHERE).values({f: bindparam(f"v_{f}") for f in _FIELDS})
_INSERT = _PROGRESS.insert()
_F = _FAILURES.c
_KNOWN = select(_F.key).where(
    _F.assignment_id == bindparam("a"), _F.problem_id == bindparam("p"), _F.user_id == bindparam("u"),
    _F.key.in_(bindparam("keys", expanding=True)),
)  # fmt: skip
_UPSERTS: dict[tuple[str, str], Any] = {}
_ADDED = {_FAILURES.name: ["count"], _KINDS.name: ["count"], _KIND_TOTALS.name: ["count"],
          _CASE_TOTALS.name: ["students", "attempts"]}  # fmt: skip


def upsert_adding(backend: str, table: Table) -> Any:
    """``INSERT … ON CONFLICT DO UPDATE`` adding the new row's counts to the existing row's (built
    once per backend and table, run with a list of rows)."""
    found = _UPSERTS.get((backend, table.name))
    if found is None:
        stmt = backend_insert(backend)(table)
        keys = [c.name for c in table.primary_key.columns]
        found = stmt.on_conflict_do_update(
            index_elements=keys, set_={c: table.c[c] + stmt.excluded[c] for c in _ADDED[table.name]}
        )
        _UPSERTS[(backend, table.name)] = found
    return found


def apply(session: Session, assignment_id: int, user_id: int, problem_id: int, seen: rules.Seen) -> bool:
    """Add one counted submission to the student's rows; False (nothing written) when it is not
    later than every submission already counted there (the caller recomputes instead)."""
    where = {"a": assignment_id, "p": problem_id, "u": user_id}
    row = session.execute(_READ, where).first()
    before = rules.Summary(**dict(zip(_FIELDS, row, strict=True))) if row else rules.Summary()
    if before.last_at is not None and seen.created_at <= before.last_at:
        return False
    done = rules.step(before, seen)
    values = {f: getattr(done.progress, f) for f in _FIELDS}
    ids = {"assignment_id": assignment_id, "problem_id": problem_id, "user_id": user_id}
    if row is None:
        session.execute(_INSERT, [ids | values])
    else:
        session.execute(_UPDATE, where | {f"v_{f}": v for f, v in values.items()})
    backend = session.get_bind().dialect.name
    if done.failures:
        keys = sorted(done.failures)
        known = set(session.scalars(_KNOWN, where | {"keys": keys}))
        session.execute(upsert_adding(backend, _FAILURES), [ids | {"key": k, "count": 1} for k in keys])
        totals = [{"assignment_id": assignment_id, "problem_id": problem_id, "key": k,
                   "students": 0 if k in known else 1, "attempts": 1} for k in keys]  # fmt: skip
        session.execute(upsert_adding(backend, _CASE_TOTALS), totals)
    if done.kinds:
        rows = [ids | {"hour": hour, "kind": kind, "count": 1} for hour, kind in sorted(done.kinds)]
        session.execute(upsert_adding(backend, _KINDS), rows)
        session.execute(
            upsert_adding(backend, _KIND_TOTALS),
            [{k: v for k, v in r.items() if k != "user_id"} for r in rows],
        )
    return True
