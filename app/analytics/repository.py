"""Every query of the analytics state (``app.analytics.models``) and what it reads of other domains.

Writes replace a student's rows for some problems of one assignment in the caller's transaction,
after :func:`lock_windows` has locked the students' window rows (in user order: every writer
locks in that order, so two never wait for each other in a circle).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Table, and_, bindparam, case, delete, func, insert, or_, select, type_coerce, update
from sqlalchemy.orm import Session

from app.analytics import increments, rules
from app.analytics.models import (
    AnalyticsAssignment,
    AnalyticsCaseTotal,
    AnalyticsFailure,
    AnalyticsKind,
    AnalyticsKindTotal,
    AnalyticsProgress,
    AnalyticsWindow,
)
from app.courses.models import (
    ACTIVE,
    STUDENT,
    Assignment,
    AssignmentProblem,
    CourseMember,
    EnrolmentPeriod,
    Extension,
)
from app.kit.db import UTCDateTime, backend_insert
from app.solutions.models import GiveUp
from app.submissions.models import COPY_KEY_PREFIX, FINISHED, Submission

_WINDOWS: Table = AnalyticsWindow.__table__  # type: ignore[assignment]
_PROGRESS: Table = AnalyticsProgress.__table__  # type: ignore[assignment]
_FAILURES: Table = AnalyticsFailure.__table__  # type: ignore[assignment]
_KINDS: Table = AnalyticsKind.__table__  # type: ignore[assignment]
_ASSIGNMENTS: Table = AnalyticsAssignment.__table__  # type: ignore[assignment]
_CASE_TOTALS: Table = AnalyticsCaseTotal.__table__  # type: ignore[assignment]
_KIND_TOTALS: Table = AnalyticsKindTotal.__table__  # type: ignore[assignment]
_CHUNK = 500  # ids per IN list
Slice = tuple[int, int]  # (user, problem)


def _chunks(ids: Sequence[int]) -> Iterable[Sequence[int]]:
    for i in range(0, len(ids), _CHUNK):
        yield ids[i : i + _CHUNK]


# --- what the writer reads of courses and submissions ---------------------------------------------

_AP: Table = AssignmentProblem.__table__  # type: ignore[assignment]
_A: Table = Assignment.__table__  # type: ignore[assignment]
_EP: Table = EnrolmentPeriod.__table__  # type: ignore[assignment]
# On every verdict: built once (``app.kit.db.prepared`` says why), on the tables, ids only.
_ASSIGNMENTS_FOR = (
    select(_AP.c.assignment_id)
    .join(_A, _A.c.id == _AP.c.assignment_id)
    .where(
        _AP.c.problem_id == bindparam("p_problem"),
        _A.c.course_id.in_(select(_EP.c.course_id).where(_EP.c.user_id == bindparam("p_user"))),
    )
    .order_by(_AP.c.assignment_id)
)


def assignments_for(session: Session, user_id: int, problem_id: int) -> list[Assignment]:
    """The assignments holding the problem in courses the user was ever enrolled in.

    One indexed query that finds nothing for a learner in no such course (every practice verdict).
    """
    ids = list(session.scalars(_ASSIGNMENTS_FOR, {"p_user": user_id, "p_problem": problem_id}))
    if not ids:
        return []
    return list(session.scalars(select(Assignment).where(Assignment.id.in_(ids)).order_by(Assignment.id)))


def enrolled_user_ids(session: Session, course_id: int) -> list[int]:
    """Everybody with an enrolment period in the course (present or past students)."""
    stmt = select(EnrolmentPeriod.user_id).where(EnrolmentPeriod.course_id == course_id).distinct()
    return sorted(session.scalars(stmt))


def _practice() -> Any:
    return or_(Submission.idempotency_key.is_(None), ~Submission.idempotency_key.startswith(COPY_KEY_PREFIX))


_SEEN_COLUMNS = (
    Submission.user_id,
    Submission.problem_id,
    Submission.created_at,
    Submission.mode,
    Submission.verdict,
    Submission.passed,
    Submission.total,
    Submission.cases,
)


def seen(
    session: Session, user_ids: Sequence[int], problem_ids: Sequence[int]
) -> dict[tuple[int, int], list[rules.Seen]]:
    """The users' finished practice submissions on the problems, by (user, problem).

    Which of them the course sees is decided by the caller (``app.courses.visibility``).
    """
    out: dict[tuple[int, int], list[rules.Seen]] = {}
    if not problem_ids:
        return out
    for chunk in _chunks(sorted(user_ids)):
        stmt = select(*_SEEN_COLUMNS).where(
            Submission.user_id.in_(chunk),
            Submission.problem_id.in_(sorted(problem_ids)),
            Submission.status == FINISHED,
            _practice(),
        )
        for user_id, problem_id, created_at, mode, verdict, passed, total, cases in session.execute(stmt):
            out.setdefault((user_id, problem_id), []).append(
                rules.Seen(created_at, mode, verdict, passed, total, cases)
            )
    return out


Marks = tuple[int, datetime | None, datetime | None]  # (counted submissions, first, last)


def counted_times(
    session: Session, user_ids: Sequence[int], problem_ids: Sequence[int]
) -> dict[tuple[int, int], list[datetime]]:
    """When each of the users' submissions on the problems that ``rules.summarise`` counts was
    made (finished practice work with a verdict that is not the platform's failure), by (user,
    problem): three small columns, none of the cases. Which the course sees is the caller's."""
    out: dict[tuple[int, int], list[datetime]] = {}
    if not problem_ids:
        return out
    for chunk in _chunks(sorted(user_ids)):
        stmt = select(Submission.user_id, Submission.problem_id, Submission.created_at).where(
            Submission.user_id.in_(chunk),
            Submission.problem_id.in_(sorted(problem_ids)),
            Submission.status == FINISHED,
            Submission.verdict.is_not(None),
            Submission.verdict.not_in(sorted(rules.IGNORED)),
            _practice(),
        )
        for user_id, problem_id, created_at in session.execute(stmt):
            out.setdefault((user_id, problem_id), []).append(created_at)
    return out


def counted_marks(
    session: Session,
    course_id: int,
    user_ids: Sequence[int],
    problem_ids: Sequence[int],
    opens: datetime,
    closes: datetime,
) -> dict[Slice, Marks]:
    """(count, first, last) of the counted submissions (as :func:`counted_times`) that the course
    sees of students whose window is the assignment's own (no extension): made from ``opens`` to
    ``closes`` (both included) while enrolled (``app.courses.visibility``'s spans, in SQL),
    grouped by the database, by (user, problem)."""
    out: dict[Slice, Marks] = {}
    if not problem_ids:
        return out
    s, ep = Submission.__table__.c, EnrolmentPeriod.__table__.c
    at = s.created_at
    enrolled = (
        select(ep.id)
        .where(
            ep.course_id == course_id,
            ep.user_id == s.user_id,
            ep.joined_at <= at,
            or_(ep.left_at.is_(None), at < ep.left_at),
        )
        .exists()
    )
    stamp = UTCDateTime()
    for chunk in _chunks(sorted(user_ids)):
        stmt = (
            select(
                s.user_id, s.problem_id, func.count(), type_coerce(func.min(at), stamp),
                type_coerce(func.max(at), stamp),
            )
            .where(
                s.user_id.in_(chunk), s.problem_id.in_(sorted(problem_ids)), s.status == FINISHED,
                s.verdict.is_not(None), s.verdict.not_in(sorted(rules.IGNORED)), _practice(),
                at >= opens, at <= closes, enrolled,
            )
            .group_by(s.user_id, s.problem_id)
        )  # fmt: skip
        out.update({(u, p): (int(n), first, last) for u, p, n, first, last in session.execute(stmt)})
    return out


def progress_marks(session: Session, assignment_id: int, user_ids: Sequence[int]) -> dict[Slice, Marks]:
    """(runs + attempts, first at, last at) of the students' progress rows, by (user, problem)."""
    p = _PROGRESS.c
    out: dict[Slice, Marks] = {}
    for chunk in _chunks(sorted(user_ids)):
        stmt = select(p.user_id, p.problem_id, p.runs + p.attempts, p.first_at, p.last_at).where(
            p.assignment_id == assignment_id, p.user_id.in_(chunk)
        )
        out.update({(u, pid): (int(n), first, last) for u, pid, n, first, last in session.execute(stmt)})
    return out


# --- the window rows: the lock and what the rows were computed for -----------------------------------


def lock_windows(session: Session, assignment_id: int, user_ids: Sequence[int]) -> dict[int, str]:
    """Lock the students' window rows (made if missing, key ``""``), in user order; their keys.

    The rows are locked first and only the missing ones inserted (then locked): a verdict's writer,
    whose student has a row once they have done anything, pays one statement."""
    ordered = sorted(set(user_ids))
    backend = session.get_bind().dialect.name
    keys: dict[int, str] = {}

    def lock(chunk: Sequence[int]) -> None:
        stmt = (
            select(_WINDOWS.c.user_id, _WINDOWS.c.key)
            .where(_WINDOWS.c.assignment_id == assignment_id, _WINDOWS.c.user_id.in_(chunk))
            .order_by(_WINDOWS.c.user_id)
            .with_for_update()
        )
        keys.update({u: k for u, k in session.execute(stmt)})

    for chunk in _chunks(ordered):
        lock(chunk)
        missing = [u for u in chunk if u not in keys]
        if missing:
            session.execute(
                backend_insert(backend)(_WINDOWS).on_conflict_do_nothing(),
                [{"assignment_id": assignment_id, "user_id": u, "key": ""} for u in missing],
            )
            lock(missing)
    return keys


_SET_KEY = (
    update(_WINDOWS)
    .where(_WINDOWS.c.assignment_id == bindparam("a"), _WINDOWS.c.user_id == bindparam("u"))
    .values(key=bindparam("k"))
)


def set_window_keys(session: Session, assignment_id: int, keys: dict[int, str]) -> None:
    """One statement run with every student's key (an executemany), in user order."""
    if keys:
        session.execute(_SET_KEY, [{"a": assignment_id, "u": u, "k": k} for u, k in sorted(keys.items())])


def window_keys(session: Session, assignment_id: int, user_ids: Sequence[int]) -> dict[int, str]:
    """The keys the students' rows were computed for (a student without rows has none)."""
    out: dict[int, str] = {}
    for chunk in _chunks(sorted(user_ids)):
        stmt = select(_WINDOWS.c.user_id, _WINDOWS.c.key).where(
            _WINDOWS.c.assignment_id == assignment_id, _WINDOWS.c.user_id.in_(chunk)
        )
        out.update({u: k for u, k in session.execute(stmt)})
    return out


def assignment_keys(session: Session, assignment_id: int) -> tuple[str, str] | None:
    """(problems key, inputs key) the assignment's rows were last checked against, if ever."""
    a = _ASSIGNMENTS.c
    row = session.execute(
        select(a.problems_key, a.inputs_key).where(a.assignment_id == assignment_id)
    ).first()
    return None if row is None else (row[0], row[1])


def set_assignment_keys(session: Session, assignment_id: int, problems_key: str, inputs_key: str) -> None:
    backend = session.get_bind().dialect.name
    values = {"problems_key": problems_key, "inputs_key": inputs_key}
    stmt = backend_insert(backend)(_ASSIGNMENTS).values(assignment_id=assignment_id, **values)
    session.execute(stmt.on_conflict_do_update(index_elements=["assignment_id"], set_=values))


def window_inputs(session: Session, course_id: int, assignment_id: int) -> list[Any]:
    """What every student's window on the assignment is made of, in a few small reads: its
    extensions (few rows) and a summary of the course's enrolment periods (a period is only ever
    added, or closed once: its count, closed count, last id and latest times change with each)."""
    e = Extension.__table__.c
    extensions = session.execute(
        select(e.user_id, e.release_at, e.due_at, e.late)
        .where(e.assignment_id == assignment_id)
        .order_by(e.user_id)
    ).all()
    p = EnrolmentPeriod.__table__.c
    periods = session.execute(
        select(
            func.count(), func.count(p.left_at), func.max(p.id), func.max(p.joined_at), func.max(p.left_at)
        ).where(p.course_id == course_id)
    ).one()
    return [tuple(r) for r in extensions] + [tuple(periods)]


# --- the rows ---------------------------------------------------------------------------------------


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
    for chunk in _chunks(sorted(user_ids)):
        where_f = [_FAILURES.c.assignment_id == assignment_id, _FAILURES.c.user_id.in_(chunk)]
        where_k = [_KINDS.c.assignment_id == assignment_id, _KINDS.c.user_id.in_(chunk)]
        if problem_ids is not None:
            where_f.append(_FAILURES.c.problem_id.in_(sorted(problem_ids)))
            where_k.append(_KINDS.c.problem_id.in_(sorted(problem_ids)))
        for p, key, n in session.execute(
            select(_FAILURES.c.problem_id, _FAILURES.c.key, _FAILURES.c.count).where(*where_f)
        ):
            old_failures[(p, key)] += n
            old_students[(p, key)] += 1
        for p, hour, kind, n in session.execute(
            select(_KINDS.c.problem_id, _KINDS.c.hour, _KINDS.c.kind, _KINDS.c.count).where(*where_k)
        ):
            old_kinds[(p, hour, kind)] += n
        for table in (_PROGRESS, _FAILURES, _KINDS):
            where = [table.c.assignment_id == assignment_id, table.c.user_id.in_(chunk)]
            if problem_ids is not None:
                where.append(table.c.problem_id.in_(sorted(problem_ids)))
            session.execute(delete(table).where(and_(*where)))
    rows = rows_of(assignment_id, summaries)
    for table, part in zip((_PROGRESS, _FAILURES, _KINDS), rows, strict=True):
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
        session.execute(increments.upsert_adding(backend, _CASE_TOTALS), cases)
    kinds = []
    for p, hour, kind in sorted(set(old_kinds) | set(new_kinds)):
        d = new_kinds[(p, hour, kind)] - old_kinds[(p, hour, kind)]
        if d:
            kinds.append(
                {"assignment_id": assignment_id, "problem_id": p, "hour": hour, "kind": kind, "count": d}
            )
    if kinds:
        session.execute(increments.upsert_adding(backend, _KIND_TOTALS), kinds)
    if any(new_students[k] < old_students[k] for k in old_students) or any(
        new_kinds[k] < old_kinds[k] for k in old_kinds
    ):  # a total may have reached zero: no row for it
        for table, column in ((_CASE_TOTALS, _CASE_TOTALS.c.students), (_KIND_TOTALS, _KIND_TOTALS.c.count)):
            session.execute(delete(table).where(table.c.assignment_id == assignment_id, column <= 0))


def retotal(session: Session, assignment_id: int) -> None:
    """The assignment's totals summed again from its students' rows (after windows moved, or a
    student was deleted with their rows)."""
    session.execute(delete(_CASE_TOTALS).where(_CASE_TOTALS.c.assignment_id == assignment_id))
    session.execute(delete(_KIND_TOTALS).where(_KIND_TOTALS.c.assignment_id == assignment_id))
    f, k = _FAILURES.c, _KINDS.c
    session.execute(
        insert(_CASE_TOTALS).from_select(
            ["assignment_id", "problem_id", "key", "students", "attempts"],
            select(f.assignment_id, f.problem_id, f.key, func.count(), func.sum(f.count))
            .where(f.assignment_id == assignment_id)
            .group_by(f.assignment_id, f.problem_id, f.key),
        )
    )
    session.execute(
        insert(_KIND_TOTALS).from_select(
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
          for table, part in zip((_PROGRESS, _FAILURES, _KINDS), rows, strict=True)),
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
    for table in (_PROGRESS, _FAILURES, _KINDS):
        session.execute(
            delete(table).where(
                table.c.assignment_id == assignment_id, table.c.problem_id.not_in(problem_ids)
            )
        )


# --- reads for the report (the course's active students) -------------------------------------------


def _active(course_id: int, column: Any) -> Any:
    students = select(CourseMember.user_id).where(
        CourseMember.course_id == course_id, CourseMember.role == STUDENT, CourseMember.status == ACTIVE
    )
    return column.in_(students)


def _of(table: Table, course_id: int, assignment_id: int, problem_id: int | None) -> list[Any]:
    where = [table.c.assignment_id == assignment_id, _active(course_id, table.c.user_id)]
    if problem_id is not None:
        where.append(table.c.problem_id == problem_id)
    return where


def count_active(session: Session, course_id: int) -> int:
    stmt = select(func.count()).where(
        CourseMember.course_id == course_id, CourseMember.role == STUDENT, CourseMember.status == ACTIVE
    )
    return int(session.scalar(stmt) or 0)


def give_ups(session: Session, course_id: int, problem_id: int | None = None) -> dict[int, int]:
    """``{problem: active students who chose "give up and show solutions" on it}`` (kept by
    ``app.solutions``, one row per learner and problem, with its time)."""
    stmt = (
        select(GiveUp.problem_id, func.count())
        .join(CourseMember, CourseMember.user_id == GiveUp.user_id)
        .where(
            CourseMember.course_id == course_id, CourseMember.role == STUDENT, CourseMember.status == ACTIVE
        )
        .group_by(GiveUp.problem_id)
    )
    if problem_id is not None:
        stmt = stmt.where(GiveUp.problem_id == problem_id)
    return {int(p): int(n) for p, n in session.execute(stmt)}


ProgressFigure = tuple[int, bool, float | None, int | None, bool]


def progress_figures(
    session: Session, course_id: int, assignment_id: int, now: datetime, problem_id: int | None = None
) -> list[ProgressFigure]:
    """(problem, solved, minutes to solve, attempts to solve, stuck) of each active student's row:
    the problems' counts, medians and stuck students come from this one read (a few small columns
    of one row per student and problem), added up by the caller."""
    p = _PROGRESS.c
    stuck_now = rules.stuck_sql(p.solved_at, p.failed, p.since_best, p.best_at, now)
    stmt = select(
        p.problem_id,
        case((p.solved_at.is_(None), 0), else_=1),
        p.minutes_to_solve,
        p.attempts_to_solve,
        case((stuck_now, 1), else_=0),
    ).where(*_of(_PROGRESS, course_id, assignment_id, problem_id))
    return [
        (int(pid), bool(solved), None if m is None else float(m), None if n is None else int(n), bool(st))
        for pid, solved, m, n, st in session.connection().execute(stmt).all()  # Core rows, fetched at once
    ]


StuckRow = tuple[int, int, str, str, int, int, int, int, datetime]


def _stuck_where(course_id: int, assignment_id: int, now: datetime, problem_id: int | None) -> list[Any]:
    p = _PROGRESS.c
    return [
        *_of(_PROGRESS, course_id, assignment_id, problem_id),
        rules.stuck_sql(p.solved_at, p.failed, p.since_best, p.best_at, now),
    ]


def stuck(
    session: Session,
    course_id: int,
    assignment_id: int,
    now: datetime,
    problem_id: int | None = None,
    limit: int | None = None,
) -> list[StuckRow]:
    """(problem, user, email, section, failed, best passed, best total, since best, last at) of the
    active students stuck (``rules.stuck_sql``), most failures first (the first ``limit``)."""
    from app.accounts.models import User

    p = _PROGRESS.c
    stmt = (
        select(p.problem_id, p.user_id, User.email, CourseMember.section, p.failed, p.best_passed,
               p.best_total, p.since_best, p.last_at)
        .join(User, User.id == p.user_id)
        .join(CourseMember, and_(CourseMember.user_id == p.user_id, CourseMember.course_id == course_id))
        .where(*_stuck_where(course_id, assignment_id, now, problem_id))
        .order_by(p.failed.desc(), User.email, p.problem_id)
        .limit(limit)
    )  # fmt: skip
    return [tuple(r) for r in session.execute(stmt)]


def _not_started_where(course_id: int, assignment_id: int, problem_ids: Sequence[int]) -> list[Any]:
    from app.accounts.models import User

    p = _PROGRESS.c
    started = select(p.user_id).where(p.assignment_id == assignment_id, p.problem_id.in_(list(problem_ids)))
    return [
        CourseMember.course_id == course_id,
        CourseMember.role == STUDENT,
        CourseMember.status == ACTIVE,
        User.id.not_in(started),
    ]


def not_started(
    session: Session, course_id: int, assignment_id: int, problem_ids: Sequence[int], limit: int | None = None
) -> list[tuple[int, str, str]]:
    """(user, email, section) of the active students with no row on any of the problems (by email;
    the first ``limit``)."""
    from app.accounts.models import User

    stmt = (
        select(User.id, User.email, CourseMember.section)
        .join(CourseMember, CourseMember.user_id == User.id)
        .where(*_not_started_where(course_id, assignment_id, problem_ids))
        .order_by(User.email, User.id)
        .limit(limit)
    )
    return [(u, e, sec or "") for u, e, sec in session.execute(stmt)]


def count_not_started(
    session: Session, course_id: int, assignment_id: int, problem_ids: Sequence[int]
) -> int:
    from app.accounts.models import User

    stmt = (
        select(func.count())
        .select_from(User)
        .join(CourseMember, CourseMember.user_id == User.id)
        .where(*_not_started_where(course_id, assignment_id, problem_ids))
    )
    return int(session.scalar(stmt) or 0)


def failure_totals(
    session: Session, assignment_id: int, problem_id: int | None = None
) -> list[tuple[int, str, int, int]]:
    """(problem, key, students, failed attempts): the class's totals."""
    c = _CASE_TOTALS.c
    stmt = select(c.problem_id, c.key, c.students, c.attempts).where(c.assignment_id == assignment_id)
    if problem_id is not None:
        stmt = stmt.where(c.problem_id == problem_id)
    return [(p, key, int(n), int(total)) for p, key, n, total in session.execute(stmt)]


def kind_totals(
    session: Session, assignment_id: int, problem_id: int | None = None
) -> list[tuple[datetime, str, int]]:
    """(hour, kind, failed attempts): the class's totals, over the problems (or one).

    One row per hour with a column per kind (fewer rows to read than one per hour and kind)."""
    k = _KIND_TOTALS.c
    columns = [func.sum(case((k.kind == kind, k.count), else_=0)) for kind in rules.KINDS]
    stmt = select(k.hour, *columns).where(k.assignment_id == assignment_id).group_by(k.hour)
    if problem_id is not None:
        stmt = stmt.where(k.problem_id == problem_id)
    out: list[tuple[datetime, str, int]] = []
    for hour, *counts in session.connection().execute(stmt).all():
        at = _aware(hour)
        out.extend((at, kind, int(n)) for kind, n in zip(rules.KINDS, counts, strict=True) if n)
    return out


def _aware(at: Any) -> datetime:
    """A grouped column comes back without its type's processing on SQLite (a string or naive)."""
    if isinstance(at, str):
        at = datetime.fromisoformat(at)
    return at if at.tzinfo is not None else at.replace(tzinfo=UTC)


# --- the whole state, for the rebuild and its check ------------------------------------------------


def all_rows(session: Session) -> tuple[set[tuple[Any, ...]], ...]:
    """Every progress, failure and kind row as plain tuples (for comparing with a rebuild)."""

    def rows(table: Table) -> set[tuple[Any, ...]]:
        return {tuple(r) for r in session.execute(select(*table.c))}

    return rows(_PROGRESS), rows(_FAILURES), rows(_KINDS), rows(_CASE_TOTALS), rows(_KIND_TOTALS)


def clear(session: Session) -> None:
    for table in (_PROGRESS, _FAILURES, _KINDS, _WINDOWS, _ASSIGNMENTS, _CASE_TOTALS, _KIND_TOTALS):
        session.execute(delete(table))


def course_assignments(session: Session, course_id: int) -> list[Assignment]:
    return list(
        session.scalars(select(Assignment).where(Assignment.course_id == course_id).order_by(Assignment.id))
    )


def all_assignments(session: Session) -> list[Assignment]:
    return list(session.scalars(select(Assignment).order_by(Assignment.id)))


def extended_user_ids(session: Session, assignment_id: int) -> list[int]:
    """The students with an extension on the assignment (their window is not its own)."""
    e = Extension.__table__.c
    return sorted(session.scalars(select(e.user_id).where(e.assignment_id == assignment_id)))
