"""Reads and writes of the maintained progress state; every query on it lives here.

Writes are single atomic statements (an upsert or an increment), so concurrent verdicts recorded by
several processes never lose a count; each is called once per fact, in that fact's transaction.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import Table, bindparam, case, delete, func, select, update
from sqlalchemy.orm import Session

from app.kit.db import UTCDateTime, backend_insert, prepared
from app.progress import rules
from app.progress.models import LearnerProblem, ProblemStats

# The verdict path's writes are built on the tables (``app.kit.db.prepared`` says why).
_LEARNER_PROBLEMS: Table = LearnerProblem.__table__  # type: ignore[assignment]
_PROBLEM_STATS: Table = ProblemStats.__table__  # type: ignore[assignment]


def _attempt_statement(backend: str) -> Any:
    lp = _LEARNER_PROBLEMS.c
    new = backend_insert(backend)(_LEARNER_PROBLEMS).values(
        user_id=bindparam("p_user"),
        problem_id=bindparam("p_problem"),
        submissions=1,
        last_submitted_at=bindparam("p_at", type_=UTCDateTime()),
    )
    return new.on_conflict_do_update(
        index_elements=["user_id", "problem_id"],
        set_={
            "submissions": lp.submissions + 1,
            "last_submitted_at": case(
                (lp.last_submitted_at < new.excluded.last_submitted_at, new.excluded.last_submitted_at),
                else_=lp.last_submitted_at,
            ),
        },
    )


def record_attempt(session: Session, user_id: int, problem_id: int, at: datetime) -> None:
    """A new run or submit: the learner has now attempted the problem."""
    statement = prepared(session, "progress.attempt", _attempt_statement)
    session.execute(statement, {"p_user": user_id, "p_problem": problem_id, "p_at": at})


def _stats_statement(backend: str) -> Any:
    ps = _PROBLEM_STATS.c
    new = backend_insert(backend)(_PROBLEM_STATS).values(
        problem_id=bindparam("p_problem"), judged=1, accepted=bindparam("p_accepted")
    )
    return new.on_conflict_do_update(
        index_elements=["problem_id"],
        set_={"judged": ps.judged + 1, "accepted": ps.accepted + new.excluded.accepted},
    )


# The same on every backend: a module constant (``app.kit.db.prepared`` says why and where).
_FIRST_SOLVE = (
    update(_LEARNER_PROBLEMS)
    .where(
        _LEARNER_PROBLEMS.c.user_id == bindparam("p_user"),
        _LEARNER_PROBLEMS.c.problem_id == bindparam("p_problem"),
    )
    .where(
        (_LEARNER_PROBLEMS.c.solved_at.is_(None))
        | (_LEARNER_PROBLEMS.c.solved_at > bindparam("p_created", type_=UTCDateTime()))
    )
    .values(solved_at=bindparam("p_solved", type_=UTCDateTime()))
)


def record_verdict(
    session: Session, user_id: int, problem_id: int, mode: str, verdict: str | None, created_at: datetime
) -> None:
    """A verdict was recorded (exactly once) for a submission made at ``created_at``."""
    if not rules.counts_as_judged(mode, verdict):
        return
    solved = rules.counts_as_solved(mode, verdict)
    statement = prepared(session, "progress.stats", _stats_statement)
    session.execute(statement, {"p_problem": problem_id, "p_accepted": int(solved)})
    if solved:
        session.execute(
            _FIRST_SOLVE,
            {"p_user": user_id, "p_problem": problem_id, "p_created": created_at, "p_solved": created_at},
        )


def retract_verdict(
    session: Session,
    user_id: int,
    problem_id: int,
    mode: str,
    verdict: str | None,
    first_other_solve: datetime | None,
) -> None:
    """A recorded verdict is taken back (re-judging): undo its counts.

    ``first_other_solve`` is when the learner's earliest *other* solving submission was made (the
    caller reads it from the submissions table), so "solved" stays true only if it still holds.
    """
    if not rules.counts_as_judged(mode, verdict):
        return
    solved = rules.counts_as_solved(mode, verdict)
    session.execute(
        update(ProblemStats)
        .where(ProblemStats.problem_id == problem_id)
        .values(judged=ProblemStats.judged - 1, accepted=ProblemStats.accepted - int(solved))
        .execution_options(synchronize_session=False)
    )
    if solved:
        session.execute(
            update(LearnerProblem)
            .where(LearnerProblem.user_id == user_id, LearnerProblem.problem_id == problem_id)
            .values(solved_at=first_other_solve)
            .execution_options(synchronize_session=False)
        )


# --- reads ------------------------------------------------------------------------------------------


def acceptance_counts(session: Session, problem_ids: Sequence[int]) -> dict[int, tuple[int, int]]:
    """``{problem_id: (accepted, judged)}``; problems nobody submitted to are absent."""
    if not problem_ids:
        return {}
    stmt = select(ProblemStats.problem_id, ProblemStats.accepted, ProblemStats.judged).where(
        ProblemStats.problem_id.in_(problem_ids)
    )
    return {pid: (int(acc), int(judged)) for pid, acc, judged in session.execute(stmt)}


def marks(session: Session, user_id: int) -> dict[int, bool]:
    """``{problem_id: solved}`` for every problem the learner ran or submitted anything for."""
    stmt = select(LearnerProblem.problem_id, LearnerProblem.solved_at).where(
        LearnerProblem.user_id == user_id
    )
    return {pid: solved_at is not None for pid, solved_at in session.execute(stmt)}


def solved_ids(session: Session, user_id: int) -> set[int]:
    stmt = select(LearnerProblem.problem_id).where(
        LearnerProblem.user_id == user_id, LearnerProblem.solved_at.is_not(None)
    )
    return set(session.scalars(stmt))


def is_solved(session: Session, user_id: int, problem_id: int) -> bool:
    row = session.get(LearnerProblem, (user_id, problem_id))
    return row is not None and row.solved_at is not None


def first_solves(session: Session, user_id: int) -> list[datetime]:
    """When each problem the learner solved was first solved, oldest first."""
    stmt = (
        select(LearnerProblem.solved_at)
        .where(LearnerProblem.user_id == user_id, LearnerProblem.solved_at.is_not(None))
        .order_by(LearnerProblem.solved_at)
    )
    return [at for at in session.scalars(stmt) if at is not None]


# --- the whole state, for the rebuild and its check -----------------------------------------------

LearnerRow = tuple[int, int, int, datetime | None, datetime]  # user, problem, submissions, solved, last
StatsRow = tuple[int, int, int]  # problem, judged, accepted


def learner_rows(session: Session) -> list[LearnerRow]:
    stmt = select(
        LearnerProblem.user_id,
        LearnerProblem.problem_id,
        LearnerProblem.submissions,
        LearnerProblem.solved_at,
        LearnerProblem.last_submitted_at,
    ).order_by(LearnerProblem.user_id, LearnerProblem.problem_id)
    return [(u, p, n, s, last) for u, p, n, s, last in session.execute(stmt)]


def stats_rows(session: Session) -> list[StatsRow]:
    stmt = select(ProblemStats.problem_id, ProblemStats.judged, ProblemStats.accepted).order_by(
        ProblemStats.problem_id
    )
    return [(p, j, a) for p, j, a in session.execute(stmt) if j or a]


def replace_all(session: Session, learners: list[LearnerRow], stats: list[StatsRow]) -> None:
    """Replace the whole state (the rebuild), in the caller's transaction."""
    session.execute(delete(LearnerProblem))
    session.execute(delete(ProblemStats))
    if learners:
        session.execute(
            LearnerProblem.__table__.insert(),  # type: ignore[attr-defined]
            [
                {"user_id": u, "problem_id": p, "submissions": n, "solved_at": s, "last_submitted_at": last}
                for u, p, n, s, last in learners
            ],
        )
    if stats:
        session.execute(
            ProblemStats.__table__.insert(),  # type: ignore[attr-defined]
            [{"problem_id": p, "judged": j, "accepted": a} for p, j, a in stats],
        )


def count_rows(session: Session) -> tuple[int, int]:
    return (
        int(session.scalar(select(func.count()).select_from(LearnerProblem)) or 0),
        int(session.scalar(select(func.count()).select_from(ProblemStats)) or 0),
    )
