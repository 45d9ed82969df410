"""What the analytics state is computed from, read and never written: the courses' assignments,
enrolments and extensions (``app.courses``) and the students' finished practice submissions
(``app.submissions``). Which submissions a course sees is the caller's rule
(``app.courses.visibility``); :func:`counted_marks` is its SQL form for the students on the
assignment's own dates.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import Table, bindparam, func, or_, select, type_coerce
from sqlalchemy.orm import Session

from app.analytics import rules
from app.analytics.tables import Marks, Slice, chunks
from app.courses.models import Assignment, AssignmentProblem, EnrolmentPeriod, Extension
from app.kit.db import UTCDateTime
from app.submissions.models import COPY_KEY_PREFIX, FINISHED, Submission

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
    for chunk in chunks(sorted(user_ids)):
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


def counted_times(
    session: Session, user_ids: Sequence[int], problem_ids: Sequence[int]
) -> dict[tuple[int, int], list[datetime]]:
    """When each of the users' submissions on the problems that ``rules.summarise`` counts was
    made (finished practice work with a verdict that is not the platform's failure), by (user,
    problem): three small columns, none of the cases. Which the course sees is the caller's."""
    out: dict[tuple[int, int], list[datetime]] = {}
    if not problem_ids:
        return out
    for chunk in chunks(sorted(user_ids)):
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
    for chunk in chunks(sorted(user_ids)):
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
