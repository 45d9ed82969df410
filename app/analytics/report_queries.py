"""The analytics report's reads (the course's active students): a few aggregates over the
maintained rows and totals, and who is stuck or has not started, by email.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Table, and_, case, func, select
from sqlalchemy.orm import Session

from app.analytics import rules
from app.analytics.tables import CASE_TOTALS, KIND_TOTALS, PROGRESS
from app.courses.models import ACTIVE, STUDENT, CourseMember
from app.solutions.models import GiveUp


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
    p = PROGRESS.c
    stuck_now = rules.stuck_sql(p.solved_at, p.failed, p.since_best, p.best_at, now)
    stmt = select(
        p.problem_id,
        case((p.solved_at.is_(None), 0), else_=1),
        p.minutes_to_solve,
        p.attempts_to_solve,
        case((stuck_now, 1), else_=0),
    ).where(*_of(PROGRESS, course_id, assignment_id, problem_id))
    return [
        (int(pid), bool(solved), None if m is None else float(m), None if n is None else int(n), bool(st))
        for pid, solved, m, n, st in session.connection().execute(stmt).all()  # Core rows, fetched at once
    ]


StuckRow = tuple[int, int, str, str, int, int, int, int, datetime]


def _stuck_where(course_id: int, assignment_id: int, now: datetime, problem_id: int | None) -> list[Any]:
    p = PROGRESS.c
    return [
        *_of(PROGRESS, course_id, assignment_id, problem_id),
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

    p = PROGRESS.c
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

    p = PROGRESS.c
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
    c = CASE_TOTALS.c
    stmt = select(c.problem_id, c.key, c.students, c.attempts).where(c.assignment_id == assignment_id)
    if problem_id is not None:
        stmt = stmt.where(c.problem_id == problem_id)
    return [(p, key, int(n), int(total)) for p, key, n, total in session.execute(stmt)]


def kind_totals(
    session: Session, assignment_id: int, problem_id: int | None = None
) -> list[tuple[datetime, str, int]]:
    """(hour, kind, failed attempts): the class's totals, over the problems (or one).

    One row per hour with a column per kind (fewer rows to read than one per hour and kind)."""
    k = KIND_TOTALS.c
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
