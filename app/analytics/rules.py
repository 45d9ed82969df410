"""The one home of what analytics counts, computed from one student's visible submissions.

:func:`summarise` turns the submissions of one student on one assignment problem (those the
course sees, ``app.courses.visibility``) into the rows of the maintained state. The verdict's
writer and the rebuild both call it, so the two can never disagree on a definition:

- an **attempt** is a judged Submit (an ``internal_error`` is the platform's failure, never the
  student's, and counts for nothing); a **run** is a Run or a run on their own input;
- **solved** at the first accepted attempt; **attempts to solve** counts the attempts made up to
  and including it; **time to solve** runs from the student's first run or attempt to that one;
- the **best** attempt passed the most cases (the earliest such); **since best** counts the
  attempts after it, which did not do better;
- a failed attempt counts once for each case it failed (``hidden:`` or ``public:`` and the case's
  name), once for each rule it broke (``rule:`` and the rule's id), and once for each kind of
  failure (:data:`KINDS`) in the hour it was made;
- **stuck**: not solved, at least :data:`STUCK_FAILED` failed attempts, and no progress recently:
  the last :data:`STUCK_FLAT` attempts did not pass more cases, or nothing got better for
  :data:`STUCK_IDLE`.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import and_, or_

from runner.verdict import Verdict

SUBMIT = "submit"
ACCEPTED = Verdict.ACCEPTED.value
IGNORED = frozenset({Verdict.INTERNAL_ERROR.value})

# The kinds of failure shown over time, in the order of the charts' legend.
KINDS: dict[str, str] = {
    "shape": "Shape",
    "dtype": "Dtype",
    "values": "Values",
    "rule": "Rules and checks",
    "exception": "Exception",
    "time": "Time limit",
    "limits": "Memory or output limit",
}
# runner.judging.failures kinds -> the chart's kinds (``not_run`` follows another failure: none).
_KIND_OF: dict[str, str] = {
    "shape": "shape",
    "dtype": "dtype",
    **{k: "values" for k in ("values", "non_finite", "type", "no_value", "device", "requires_grad",
                             "layout", "refused")},
    **{k: "rule" for k in ("rule", "gradients", "in_place", "storage", "optimizer", "hooks",
                           "operations", "judge_modified", "left_state")},
    "exception": "exception",
    "time_limit": "time",
    "memory_limit": "limits",
    "output_limit": "limits",
}  # fmt: skip
# A failed attempt whose cases say nothing (a compile error refuses the code before any case).
_KIND_OF_VERDICT: dict[str, str] = {
    Verdict.COMPILE_ERROR.value: "exception",
    Verdict.RUNTIME_ERROR.value: "exception",
    Verdict.TIME_LIMIT_EXCEEDED.value: "time",
    Verdict.MEMORY_LIMIT_EXCEEDED.value: "limits",
    Verdict.OUTPUT_LIMIT_EXCEEDED.value: "limits",
    Verdict.WRONG_ANSWER.value: "values",
}

STUCK_FAILED = 5
STUCK_FLAT = 3
STUCK_IDLE = timedelta(hours=24)
KEY_MAX = 240


@dataclass(frozen=True)
class Seen:
    """What analytics reads of one submission."""

    created_at: datetime
    mode: str
    verdict: str | None
    passed: int | None
    total: int | None
    cases: list[dict[str, Any]] | None


@dataclass
class Summary:
    """One student on one assignment problem: the progress row and its failure counts."""

    runs: int = 0
    attempts: int = 0
    failed: int = 0
    first_at: datetime | None = None
    last_at: datetime | None = None
    solved_at: datetime | None = None
    attempts_to_solve: int | None = None
    minutes_to_solve: float | None = None
    best_passed: int = 0
    best_total: int = 0
    best_at: datetime | None = None
    since_best: int = 0
    failures: Counter[str] = field(default_factory=Counter)
    kinds: Counter[tuple[datetime, str]] = field(default_factory=Counter)

    @property
    def active(self) -> bool:
        return self.first_at is not None


def hour_of(at: datetime) -> datetime:
    return at.replace(minute=0, second=0, microsecond=0)


def failure_keys(cases: Iterable[Mapping[str, Any]]) -> set[str]:
    """The cases a failed attempt failed and the rules it broke (each once)."""
    keys: set[str] = set()
    for case in cases:
        if case.get("status") in ("passed", "not_run"):
            continue
        name = str(case.get("name") or "case")
        keys.add(f"{'public' if case.get('public') else 'hidden'}:{name}"[:KEY_MAX])
        failure = case.get("failure")
        if isinstance(failure, Mapping) and failure.get("kind") == "rule" and failure.get("rule"):
            keys.add(f"rule:{failure['rule']}"[:KEY_MAX])
    return keys


def failure_kinds(verdict: str | None, cases: Iterable[Mapping[str, Any]]) -> set[str]:
    """The kinds (:data:`KINDS`) of a failed attempt: its cases' failures, else its verdict's."""
    kinds: set[str] = set()
    for case in cases:
        failure = case.get("failure")
        if case.get("status") in ("passed", "not_run") or not isinstance(failure, Mapping):
            continue
        kind = _KIND_OF.get(str(failure.get("kind")))
        if kind is not None:
            kinds.add(kind)
    if not kinds:
        kinds.add(_KIND_OF_VERDICT.get(verdict or "", "exception"))
    return kinds


def summarise(seen: Iterable[Seen]) -> Summary:
    """The state of one student on one problem from their visible submissions (any order)."""
    out = Summary()
    attempts: list[Seen] = []
    for s in sorted(seen, key=lambda s: s.created_at):
        if s.verdict is None or s.verdict in IGNORED:
            continue
        out.first_at = out.first_at or s.created_at
        out.last_at = s.created_at
        if s.mode != SUBMIT:
            out.runs += 1
            continue
        attempts.append(s)
        out.attempts += 1
        if s.verdict == ACCEPTED:
            if out.solved_at is None:
                out.solved_at = s.created_at
            continue
        out.failed += 1
        cases = s.cases or []
        out.failures.update(failure_keys(cases))
        hour = hour_of(s.created_at)
        out.kinds.update((hour, kind) for kind in failure_kinds(s.verdict, cases))
    if out.solved_at is not None and out.first_at is not None:
        out.attempts_to_solve = sum(1 for s in attempts if s.created_at <= out.solved_at)
        out.minutes_to_solve = round((out.solved_at - out.first_at).total_seconds() / 60, 2)
    best: Seen | None = None
    for s in attempts:
        if best is None or (s.passed or 0) > (best.passed or 0):
            best = s
    if best is not None:
        out.best_passed, out.best_total, out.best_at = best.passed or 0, best.total or 0, best.created_at
        out.since_best = sum(1 for s in attempts if s.created_at > best.created_at)
    return out


@dataclass(frozen=True)
class Step:
    """What one more submission, later than every counted one, changes: the new progress values
    (a :class:`Summary` without its counters) and what it adds to them."""

    progress: Summary
    failures: frozenset[str]  # keys each counted once more
    kinds: frozenset[tuple[datetime, str]]  # (hour, kind) each counted once more


def counts(s: Seen) -> bool:
    """Whether the submission counts at all (a verdict, and not the platform's failure)."""
    return s.verdict is not None and s.verdict not in IGNORED


def step(before: Summary, s: Seen) -> Step:
    """:func:`summarise` of the submissions so far plus ``s``, made after every one of them (the
    verdict's writer applies it instead of summarising again; ``before`` needs no counters).

    ``summarise(xs + [s])`` equals ``step(summarise(xs), s)`` applied to it whenever ``s`` is later
    than every submission of ``xs`` (a property test holds the two together).
    """
    out = Summary(**{k: getattr(before, k) for k in _PROGRESS_FIELDS})
    failures: frozenset[str] = frozenset()
    kinds: frozenset[tuple[datetime, str]] = frozenset()
    if not counts(s):
        return Step(out, failures, kinds)
    out.first_at = out.first_at or s.created_at
    out.last_at = s.created_at
    if s.mode != SUBMIT:
        out.runs += 1
    else:
        out.attempts += 1
        if s.verdict == ACCEPTED:
            if out.solved_at is None:
                out.solved_at, out.attempts_to_solve = s.created_at, out.attempts
                out.minutes_to_solve = round((s.created_at - out.first_at).total_seconds() / 60, 2)
        else:
            out.failed += 1
            cases = s.cases or []
            failures = frozenset(failure_keys(cases))
            kinds = frozenset((hour_of(s.created_at), k) for k in failure_kinds(s.verdict, cases))
        if out.best_at is None or (s.passed or 0) > out.best_passed:
            out.best_passed, out.best_total, out.best_at, out.since_best = (
                s.passed or 0,
                s.total or 0,
                s.created_at,
                0,
            )
        else:
            out.since_best += 1
    return Step(out, failures, kinds)


_PROGRESS_FIELDS = (
    "runs", "attempts", "failed", "first_at", "last_at", "solved_at", "attempts_to_solve",
    "minutes_to_solve", "best_passed", "best_total", "best_at", "since_best",
)  # fmt: skip


def is_stuck(solved: bool, failed: int, since_best: int, best_at: datetime | None, now: datetime) -> bool:
    """Not solved, many failed attempts, and no progress recently (the module's definition)."""
    if solved or failed < STUCK_FAILED:
        return False
    return since_best >= STUCK_FLAT or best_at is None or now - best_at >= STUCK_IDLE


def stuck_sql(solved_at: Any, failed: Any, since_best: Any, best_at: Any, now: datetime) -> Any:
    """:func:`is_stuck` as a SQL condition over the given columns."""
    return and_(
        solved_at.is_(None),
        failed >= STUCK_FAILED,
        or_(since_best >= STUCK_FLAT, best_at.is_(None), best_at <= now - STUCK_IDLE),
    )
