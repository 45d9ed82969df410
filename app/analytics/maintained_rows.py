"""The maintained rows of a student on an assignment's problems (progress, failures, kinds) and
the class's totals kept with them: replaced in the writer's transaction (the totals moved by the
difference), summed again, compared with a rebuild, cleared.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import Table, and_, delete, func, insert, select
from sqlalchemy.orm import Session

from app.analytics import increments, rules
from app.analytics.tables import (
    ASSIGNMENTS,
    CASE_TOTALS,
    FAILURES,
    KIND_TOTALS,
    KINDS,
    PROGRESS,
    WINDOWS,
    Marks,
    Slice,
    chunks,
)


def progress_marks(session: Session, assignment_id: int, user_ids: Sequence[int]) -> dict[Slice, Marks]:
    """(runs + attempts, first at, last at) of the students' progress rows, by (user, problem)."""
    p = PROGRESS.c
    out: dict[Slice, Marks] = {}
    for chunk in chunks(sorted(user_ids)):
        stmt = select(p.user_id, p.problem_id, p.runs + p.attempts, p.first_at, p.last_at).where(
            p.assignment_id == assignment_id, p.user_id.in_(chunk)
        )
        out.update({(u, pid): (int(n), first, last) for u, pid, n, first, last in session.execute(stmt)})
    return out


def replace_rows(
    session: Session,
    assignment_id: int,
    user_ids: Sequence[int],
    problem_ids: Sequence[int] | None,
    summaries: dict[Slice, rules.Summary],
) -> None:
    """Replace the rows of these students on these problems (None: every problem) by ``summaries``,
    and move the class's totals by the difference."""
    old_failures: Counter[tuple[int, str]] = Counter()
    old_students: Counter[tuple[int, str]] = Counter()
    old_kinds: Counter[tuple[int, datetime, str]] = Counter()
    for chunk in chunks(sorted(user_ids)):
        where_f = [FAILURES.c.assignment_id == assignment_id, FAILURES.c.user_id.in_(chunk)]
        where_k = [KINDS.c.assignment_id == assignment_id, KINDS.c.user_id.in_(chunk)]
        if problem_ids is not None:
            where_f.append(FAILURES.c.problem_id.in_(sorted(problem_ids)))
            where_k.append(KINDS.c.problem_id.in_(sorted(problem_ids)))
        for p, key, n in session.execute(
            select(FAILURES.c.problem_id, FAILURES.c.key, FAILURES.c.count).where(*where_f)
        ):
            old_failures[(p, key)] += n
            old_students[(p, key)] += 1
        for p, hour, kind, n in session.execute(
            select(KINDS.c.problem_id, KINDS.c.hour, KINDS.c.kind, KINDS.c.count).where(*where_k)
        ):
            old_kinds[(p, hour, kind)] += n
        for table in (PROGRESS, FAILURES, KINDS):
            where = [table.c.assignment_id == assignment_id, table.c.user_id.in_(chunk)]
            if problem_ids is not None:
                where.append(table.c.problem_id.in_(sorted(problem_ids)))
            session.execute(delete(table).where(and_(*where)))
    rows = rows_of(assignment_id, summaries)
    for table, part in zip((PROGRESS, FAILURES, KINDS), rows, strict=True):
        if part:
            session.execute(insert(table), part)
    new_failures: Counter[tuple[int, str]] = Counter()
    new_students: Counter[tuple[int, str]] = Counter()
    for r in rows[1]:
        new_failures[(r["problem_id"], r["key"])] += r["count"]
        new_students[(r["problem_id"], r["key"])] += 1
    new_kinds: Counter[tuple[int, datetime, str]] = Counter()
    for r in rows[2]:
        new_kinds[(r["problem_id"], r["hour"], r["kind"])] += r["count"]
    _move_totals(
        session, assignment_id, old_failures, old_students, new_failures, new_students, old_kinds, new_kinds
    )


def _move_totals(
    session: Session,
    assignment_id: int,
    old_failures: Counter[tuple[int, str]],
    old_students: Counter[tuple[int, str]],
    new_failures: Counter[tuple[int, str]],
    new_students: Counter[tuple[int, str]],
    old_kinds: Counter[tuple[int, datetime, str]],
    new_kinds: Counter[tuple[int, datetime, str]],
) -> None:
    """Add the differences to the totals, in key order (concurrent writers never wait in a circle):
    one upsert per table, run with every changed key (``increments.upsert_adding``)."""
    backend = session.get_bind().dialect.name
    cases = []
    for p, key in sorted(set(old_failures) | set(new_failures)):
        d_attempts = new_failures[(p, key)] - old_failures[(p, key)]
        d_students = new_students[(p, key)] - old_students[(p, key)]
        if d_attempts or d_students:
            cases.append({"assignment_id": assignment_id, "problem_id": p, "key": key,
                          "students": d_students, "attempts": d_attempts})  # fmt: skip
    if cases:
        session.execute(increments.upsert_adding(backend, CASE_TOTALS), cases)
    kinds = []
    for p, hour, kind in sorted(set(old_kinds) | set(new_kinds)):
        d = new_kinds[(p, hour, kind)] - old_kinds[(p, hour, kind)]
        if d:
            kinds.append(
                {"assignment_id": assignment_id, "problem_id": p, "hour": hour, "kind": kind, "count": d}
            )
    if kinds:
        session.execute(increments.upsert_adding(backend, KIND_TOTALS), kinds)
    if any(new_students[k] < old_students[k] for k in old_students) or any(
        new_kinds[k] < old_kinds[k] for k in old_kinds
    ):  # a total may have reached zero: no row for it
        for table, column in ((CASE_TOTALS, CASE_TOTALS.c.students), (KIND_TOTALS, KIND_TOTALS.c.count)):
            session.execute(delete(table).where(table.c.assignment_id == assignment_id, column <= 0))


def retotal(session: Session, assignment_id: int) -> None:
    """The assignment's totals summed again from its students' rows (after windows moved, or a
    student was deleted with their rows)."""
    session.execute(delete(CASE_TOTALS).where(CASE_TOTALS.c.assignment_id == assignment_id))
    session.execute(delete(KIND_TOTALS).where(KIND_TOTALS.c.assignment_id == assignment_id))
    f, k = FAILURES.c, KINDS.c
    session.execute(
        insert(CASE_TOTALS).from_select(
            ["assignment_id", "problem_id", "key", "students", "attempts"],
            select(f.assignment_id, f.problem_id, f.key, func.count(), func.sum(f.count))
            .where(f.assignment_id == assignment_id)
            .group_by(f.assignment_id, f.problem_id, f.key),
        )
    )
    session.execute(
        insert(KIND_TOTALS).from_select(
            ["assignment_id", "problem_id", "hour", "kind", "count"],
            select(k.assignment_id, k.problem_id, k.hour, k.kind, func.sum(k.count))
            .where(k.assignment_id == assignment_id)
            .group_by(k.assignment_id, k.problem_id, k.hour, k.kind),
        )
    )


Rows = tuple[list[dict[str, Any]], list[dict[str, Any]], list[dict[str, Any]]]


def rows_of(assignment_id: int, summaries: dict[Slice, rules.Summary]) -> Rows:
    """The progress, failure and kind rows of ``summaries`` (as the tables hold them)."""
    progress: list[dict[str, Any]] = []
    failures: list[dict[str, Any]] = []
    kinds: list[dict[str, Any]] = []
    for (user_id, problem_id), s in summaries.items():
        if not s.active:
            continue
        ids = {"assignment_id": assignment_id, "problem_id": problem_id, "user_id": user_id}
        progress.append(ids | _progress_values(s))
        failures.extend(ids | {"key": key, "count": n} for key, n in s.failures.items())
        kinds.extend(ids | {"hour": hour, "kind": kind, "count": n} for (hour, kind), n in s.kinds.items())
    return progress, failures, kinds


def as_tuples(rows: Rows) -> tuple[set[tuple[Any, ...]], ...]:
    """``rows`` and their totals as :func:`all_rows` reads them back (the tables' column order)."""
    cases: dict[tuple[int, int, str], list[int]] = {}
    for r in rows[1]:
        total = cases.setdefault((r["assignment_id"], r["problem_id"], r["key"]), [0, 0])
        total[0] += 1
        total[1] += r["count"]
    kinds: Counter[tuple[int, int, datetime, str]] = Counter()
    for r in rows[2]:
        kinds[(r["assignment_id"], r["problem_id"], r["hour"], r["kind"])] += r["count"]
    return (
        *({tuple(r[c.name] for c in table.c) for r in part}
          for table, part in zip((PROGRESS, FAILURES, KINDS), rows, strict=True)),
        {(a, p, key, n, total) for (a, p, key), (n, total) in cases.items()},
        {(a, p, hour, kind, n) for (a, p, hour, kind), n in kinds.items()},
    )  # fmt: skip


def _progress_values(s: rules.Summary) -> dict[str, Any]:
    return {
        "runs": s.runs,
        "attempts": s.attempts,
        "failed": s.failed,
        "first_at": s.first_at,
        "last_at": s.last_at,
        "solved_at": s.solved_at,
        "attempts_to_solve": s.attempts_to_solve,
        "minutes_to_solve": s.minutes_to_solve,
        "best_passed": s.best_passed,
        "best_total": s.best_total,
        "best_at": s.best_at,
        "since_best": s.since_best,
    }


def delete_other_problems(session: Session, assignment_id: int, problem_ids: Sequence[int]) -> None:
    """Rows of problems the assignment no longer holds."""
    for table in (PROGRESS, FAILURES, KINDS):
        session.execute(
            delete(table).where(
                table.c.assignment_id == assignment_id, table.c.problem_id.not_in(problem_ids)
            )
        )


# --- the whole state, for the rebuild and its check ------------------------------------------------


def all_rows(session: Session) -> tuple[set[tuple[Any, ...]], ...]:
    """Every progress, failure and kind row as plain tuples (for comparing with a rebuild)."""

    def rows(table: Table) -> set[tuple[Any, ...]]:
        return {tuple(r) for r in session.execute(select(*table.c))}

    return rows(PROGRESS), rows(FAILURES), rows(KINDS), rows(CASE_TOTALS), rows(KIND_TOTALS)


def clear(session: Session) -> None:
    for table in (PROGRESS, FAILURES, KINDS, WINDOWS, ASSIGNMENTS, CASE_TOTALS, KIND_TOTALS):
        session.execute(delete(table))
