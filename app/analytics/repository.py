"""Every query of the analytics state (``app.analytics.models``) and what it reads of other domains.

Writes replace a student's rows for some problems of one assignment in the caller's transaction,
after :func:`lock_windows` has locked the students' window rows (in user order: every writer
locks in that order, so two never wait for each other in a circle).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import Table, and_, delete, func, insert, or_, select, update
from sqlalchemy.orm import Session

from app.analytics import rules
from app.analytics.models import (
    AnalyticsAssignment,
    AnalyticsFailure,
    AnalyticsKind,
    AnalyticsProgress,
    AnalyticsWindow,
)
from app.courses.models import ACTIVE, STUDENT, Assignment, AssignmentProblem, CourseMember, EnrolmentPeriod
from app.kit.db import backend_insert
from app.submissions.models import COPY_KEY_PREFIX, FINISHED, Submission

_WINDOWS: Table = AnalyticsWindow.__table__  # type: ignore[assignment]
_PROGRESS: Table = AnalyticsProgress.__table__  # type: ignore[assignment]
_FAILURES: Table = AnalyticsFailure.__table__  # type: ignore[assignment]
_KINDS: Table = AnalyticsKind.__table__  # type: ignore[assignment]
_ASSIGNMENTS: Table = AnalyticsAssignment.__table__  # type: ignore[assignment]
_CHUNK = 500  # ids per IN list


def _chunks(ids: Sequence[int]) -> Iterable[Sequence[int]]:
    for i in range(0, len(ids), _CHUNK):
        yield ids[i : i + _CHUNK]


# --- what the writer reads of courses and submissions ---------------------------------------------

_ASSIGNMENTS_FOR = (
    select(Assignment)
    .join(AssignmentProblem, AssignmentProblem.assignment_id == Assignment.id)
    .order_by(Assignment.id)
)


def assignments_for(session: Session, user_id: int, problem_id: int) -> list[Assignment]:
    """The assignments holding the problem in courses the user was ever enrolled in (one query)."""
    courses = select(EnrolmentPeriod.course_id).where(EnrolmentPeriod.user_id == user_id)
    stmt = _ASSIGNMENTS_FOR.where(
        AssignmentProblem.problem_id == problem_id, Assignment.course_id.in_(courses)
    )
    return list(session.scalars(stmt))


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


# --- the window rows: the lock and what the rows were computed for -----------------------------------


def lock_windows(session: Session, assignment_id: int, user_ids: Sequence[int]) -> dict[int, str]:
    """Lock the students' window rows (made if missing, key ``""``), in user order; their keys."""
    ordered = sorted(set(user_ids))
    backend = session.get_bind().dialect.name
    keys: dict[int, str] = {}
    for chunk in _chunks(ordered):
        session.execute(
            backend_insert(backend)(_WINDOWS).on_conflict_do_nothing(),
            [{"assignment_id": assignment_id, "user_id": u, "key": ""} for u in chunk],
        )
        stmt = (
            select(_WINDOWS.c.user_id, _WINDOWS.c.key)
            .where(_WINDOWS.c.assignment_id == assignment_id, _WINDOWS.c.user_id.in_(chunk))
            .order_by(_WINDOWS.c.user_id)
            .with_for_update()
        )
        keys.update({u: k for u, k in session.execute(stmt)})
    return keys


def set_window_keys(session: Session, assignment_id: int, keys: dict[int, str]) -> None:
    for user_id, key in keys.items():
        session.execute(
            update(_WINDOWS)
            .where(_WINDOWS.c.assignment_id == assignment_id, _WINDOWS.c.user_id == user_id)
            .values(key=key)
        )


def window_keys(session: Session, assignment_id: int) -> dict[int, str]:
    stmt = select(_WINDOWS.c.user_id, _WINDOWS.c.key).where(_WINDOWS.c.assignment_id == assignment_id)
    return {u: k for u, k in session.execute(stmt)}


def problems_key(session: Session, assignment_id: int) -> str | None:
    row = session.get(AnalyticsAssignment, assignment_id)
    return None if row is None else row.problems_key


def set_problems_key(session: Session, assignment_id: int, key: str) -> None:
    backend = session.get_bind().dialect.name
    stmt = backend_insert(backend)(_ASSIGNMENTS).values(assignment_id=assignment_id, problems_key=key)
    session.execute(stmt.on_conflict_do_update(index_elements=["assignment_id"], set_={"problems_key": key}))


# --- the rows ---------------------------------------------------------------------------------------

Slice = tuple[int, int]  # (user, problem)


def replace_rows(
    session: Session,
    assignment_id: int,
    user_ids: Sequence[int],
    problem_ids: Sequence[int] | None,
    summaries: dict[Slice, rules.Summary],
) -> None:
    """Replace the rows of these students on these problems (None: every problem) by ``summaries``."""
    for chunk in _chunks(sorted(user_ids)):
        for table in (_PROGRESS, _FAILURES, _KINDS):
            where = [table.c.assignment_id == assignment_id, table.c.user_id.in_(chunk)]
            if problem_ids is not None:
                where.append(table.c.problem_id.in_(sorted(problem_ids)))
            session.execute(delete(table).where(and_(*where)))
    for table, rows in zip((_PROGRESS, _FAILURES, _KINDS), rows_of(assignment_id, summaries), strict=True):
        if rows:
            session.execute(insert(table), rows)


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
    """``rows`` as :func:`all_rows` reads them back (the tables' column order)."""
    return tuple(
        {tuple(r[c.name] for c in table.c) for r in part}
        for table, part in zip((_PROGRESS, _FAILURES, _KINDS), rows, strict=True)
    )


def _progress_values(s: rules.Summary) -> dict[str, Any]:
    return {
        "runs": s.runs,
        "attempts": s.attempts,
        "failed": s.failed,
        "first_at": s.first_at,
        "last_at": s.last_at,
        "solved_at": s.solved_at,
        "attempts_to_solve": s.attempts_to_solve,
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


ProgressRow = tuple[int, int, int, int, int, datetime, datetime, datetime | None, int | None, int, int,
                    datetime | None, int]  # fmt: skip


def progress_rows(
    session: Session, course_id: int, assignment_id: int, problem_id: int | None = None
) -> list[ProgressRow]:
    """(problem, user, runs, attempts, failed, first, last, solved, attempts to solve, best passed,
    best total, best at, since best) of the course's active students."""
    p = _PROGRESS.c
    stmt = select(
        p.problem_id, p.user_id, p.runs, p.attempts, p.failed, p.first_at, p.last_at, p.solved_at,
        p.attempts_to_solve, p.best_passed, p.best_total, p.best_at, p.since_best,
    ).where(p.assignment_id == assignment_id, _active(course_id, p.user_id))  # fmt: skip
    if problem_id is not None:
        stmt = stmt.where(p.problem_id == problem_id)
    return [tuple(row) for row in session.execute(stmt)]


def failure_totals(
    session: Session, course_id: int, assignment_id: int, problem_id: int | None = None
) -> list[tuple[int, str, int, int]]:
    """(problem, key, students, failed attempts) of the course's active students."""
    f = _FAILURES.c
    stmt = (
        select(f.problem_id, f.key, func.count(), func.sum(f.count))
        .where(f.assignment_id == assignment_id, _active(course_id, f.user_id))
        .group_by(f.problem_id, f.key)
    )
    if problem_id is not None:
        stmt = stmt.where(f.problem_id == problem_id)
    return [(p, k, int(n), int(total or 0)) for p, k, n, total in session.execute(stmt)]


def kind_totals(
    session: Session, course_id: int, assignment_id: int, problem_id: int | None = None
) -> list[tuple[datetime, str, int]]:
    """(hour, kind, failed attempts) of the course's active students."""
    k = _KINDS.c
    stmt = (
        select(k.hour, k.kind, func.sum(k.count))
        .where(k.assignment_id == assignment_id, _active(course_id, k.user_id))
        .group_by(k.hour, k.kind)
    )
    if problem_id is not None:
        stmt = stmt.where(k.problem_id == problem_id)
    return [(hour, kind, int(n or 0)) for hour, kind, n in session.execute(stmt)]


def active_students(session: Session, course_id: int) -> list[tuple[int, str, str]]:
    """(user id, email, section) of the course's active students, by email."""
    from app.accounts.models import User

    stmt = (
        select(User.id, User.email, CourseMember.section)
        .join(CourseMember, CourseMember.user_id == User.id)
        .where(
            CourseMember.course_id == course_id, CourseMember.role == STUDENT, CourseMember.status == ACTIVE
        )
        .order_by(User.email, User.id)
    )
    return [(u, e, s or "") for u, e, s in session.execute(stmt)]


# --- the whole state, for the rebuild and its check ------------------------------------------------


def all_rows(session: Session) -> tuple[set[tuple[Any, ...]], ...]:
    """Every progress, failure and kind row as plain tuples (for comparing with a rebuild)."""

    def rows(table: Table) -> set[tuple[Any, ...]]:
        return {tuple(r) for r in session.execute(select(*table.c))}

    return rows(_PROGRESS), rows(_FAILURES), rows(_KINDS)


def clear(session: Session) -> None:
    for table in (_PROGRESS, _FAILURES, _KINDS, _WINDOWS, _ASSIGNMENTS):
        session.execute(delete(table))


def all_assignments(session: Session) -> list[Assignment]:
    return list(session.scalars(select(Assignment).order_by(Assignment.id)))
