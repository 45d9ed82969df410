"""Scores, recomputed from stored facts whenever asked (nothing here is cached or stored).

A problem's credit for a student is the best credit over their submit-mode submissions on it:
an accepted submission earns the credit of its stored ``created_at`` against the student's
effective dates (100 % until due, a late window's percent, then 0 %); anything else earns 0.
Only the course's work counts (:mod:`app.courses.visibility`: inside the assignment's window and
while the student was enrolled), so practice outside the course never lowers or raises a score,
and a score never tells an instructor about work they may not see. Regrades that were applied
replace a submission's verdict with its re-judged copy's, and a "never lower" regrade keeps the
credit the student had before it as a floor.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime

from sqlalchemy.orm import Session

from app.courses import dates as dates_mod
from app.courses import repository, visibility
from app.courses.models import Assignment, Extension, Regrade
from app.submissions.models import COPY_KEY_PREFIX, FINISHED, Submission
from runner.verdict import Verdict

REGRADE_KEY_PREFIX = COPY_KEY_PREFIX
ACCEPTED = Verdict.ACCEPTED.value
INTERNAL_ERROR = Verdict.INTERNAL_ERROR.value


def is_regrade_copy(submission: Submission) -> bool:
    return submission.is_copy


@dataclass
class AssignmentScore:
    percent: float
    problems: dict[int, float] = field(default_factory=dict)  # problem id -> credit percent


@dataclass(frozen=True)
class Overrides:
    """What applied regrades change: verdicts of re-judged copies, and "never lower" floors."""

    verdicts: dict[tuple[int, int], dict[int, str | None]] = field(default_factory=dict)
    floors: dict[tuple[int, int], dict[int, float]] = field(default_factory=dict)

    @classmethod
    def from_regrades(
        cls, session: Session, regrades: Iterable[Regrade], extra: Regrade | None = None
    ) -> Overrides:
        """Overrides of the applied regrades (plus ``extra``, a dry run treated as applied)."""
        chosen = [r for r in regrades if r.status == "applied" and (extra is None or r.id != extra.id)]
        if extra is not None:
            chosen.append(extra)
        copy_ids = [cid for r in chosen for cid in r.copies.values()]
        copies = {s.id: s for s in repository.submissions_by_ids(session, copy_ids)}
        verdicts: dict[tuple[int, int], dict[int, str | None]] = {}
        floors: dict[tuple[int, int], dict[int, float]] = {}
        for regrade in sorted(chosen, key=lambda r: r.id):  # later regrades win
            key = (regrade.assignment_id, regrade.problem_id)
            target = verdicts.setdefault(key, {})
            for original, copy_id in regrade.copies.items():
                copy = copies.get(copy_id)
                # A copy the platform failed to judge (or lost) leaves the original verdict standing.
                if copy is not None and copy.status == FINISHED and copy.verdict != INTERNAL_ERROR:
                    target[int(original)] = copy.verdict
            if regrade is not extra and regrade.never_lower and regrade.floors:
                bucket = floors.setdefault(key, {})
                for user_id, floor in regrade.floors.items():
                    bucket[int(user_id)] = max(bucket.get(int(user_id), 0.0), float(floor))
        return cls(verdicts=verdicts, floors=floors)


@dataclass(frozen=True, slots=True)
class Attempt:
    """What scoring reads of a submit-mode submission (plain values: scoring a gradebook page
    reads each tens of times, an ORM attribute costs far more than a slot)."""

    id: int
    verdict: str | None
    created_at: datetime

    @classmethod
    def of(cls, submission: Submission) -> Attempt:
        return cls(submission.id, submission.verdict, submission.created_at)


def problem_credit(
    attempts: Iterable[Attempt],
    effective: dates_mod.Dates,
    verdicts: dict[int, str | None] | None = None,
    floor: float = 0.0,
) -> float:
    """The best credit over ``attempts`` (submit mode, no regrade copies: :func:`compute` keeps
    only those), never below ``floor``; ``verdicts`` replace the attempts' own (applied regrades)."""
    best = floor
    for attempt in attempts:
        verdict = attempt.verdict
        if verdicts is not None and attempt.id in verdicts:
            verdict = verdicts[attempt.id]
        if verdict != ACCEPTED:
            continue
        credit = effective.credit_at(attempt.created_at)
        if credit is not None:
            best = max(best, credit)
    return best


def compute(
    session: Session,
    assignments: Sequence[Assignment],
    user_ids: Sequence[int],
    *,
    extra_regrade: Regrade | None = None,
) -> dict[tuple[int, int], AssignmentScore]:
    """Scores keyed by (user id, assignment id) for every pair, recomputed from the database."""
    assignment_ids = [a.id for a in assignments]
    problem_ids = sorted({p.problem_id for a in assignments for p in a.problems})
    work = visibility.course_work(session, assignments, user_ids)
    by_pair: dict[tuple[int, int], list[Attempt]] = {}
    for s in repository.submit_submissions(session, user_ids, problem_ids):
        if s.mode == "submit" and not is_regrade_copy(s):
            by_pair.setdefault((s.user_id, s.problem_id), []).append(Attempt.of(s))
    exts: dict[tuple[int, int], Extension] = {
        (e.assignment_id, e.user_id): e for e in repository.extensions(session, assignment_ids)
    }
    overrides = Overrides.from_regrades(session, repository.regrades(session, assignment_ids), extra_regrade)
    out: dict[tuple[int, int], AssignmentScore] = {}
    for assignment in assignments:
        standard = dates_mod.effective(assignment, None)  # everyone's without an extension
        links = [(link.problem_id, (assignment.id, link.problem_id)) for link in assignment.problems]
        for user_id in user_ids:
            extension = exts.get((assignment.id, user_id))
            effective = standard if extension is None else dates_mod.effective(assignment, extension)
            credits: dict[int, float] = {}
            for problem_id, key in links:
                credit = overrides.floors.get(key, {}).get(user_id, 0.0)
                attempts = [
                    a
                    for a in by_pair.get((user_id, problem_id), ())
                    if work.counts_for(user_id, assignment.id, a.created_at)
                ]
                if attempts:
                    credit = problem_credit(attempts, effective, overrides.verdicts.get(key), credit)
                credits[problem_id] = credit
            percent = round(sum(credits.values()) / len(credits), 2) if credits else 0.0
            out[(user_id, assignment.id)] = AssignmentScore(percent=percent, problems=credits)
    return out


def total(scores: Iterable[float]) -> float:
    """A student's course total: the mean of their assignment percentages."""
    values = list(scores)
    return round(sum(values) / len(values), 2) if values else 0.0
