"""An assignment's analytics, read from the maintained state (``app.analytics.state``).

Reading first repairs the students whose window changed since their rows were written
(:func:`app.analytics.state.refresh`, nothing in the usual case); then four reads over the class's
rows: progress, failures by case and rule, kinds by hour, the active students.
"""

from __future__ import annotations

import statistics
from collections import defaultdict
from datetime import date, datetime, timedelta
from zoneinfo import ZoneInfo

from sqlalchemy.orm import Session

from app.analytics import repository, rules, state
from app.analytics.views import (
    AssignmentAnalytics,
    DayKinds,
    FailureCount,
    ProblemAnalytics,
    ProblemDetail,
    ProblemNumbers,
    StuckStudent,
    StudentRef,
)
from app.courses import assignments as assignments_mod
from app.courses.models import Assignment, Course
from app.kit.errors import NotFound
from app.problems.models import Problem

MAX_DAYS = 62  # the days shown over time: the last two months with failures


def _label(key: str) -> str:
    kind, _, name = key.partition(":")
    if kind == "rule":
        return f"rule {name}"
    return f"{kind} · {' '.join(name.replace('_', ' ').split()) or 'case'}"


def _counts(
    rows: list[tuple[int, str, int, int]], problem_id: int, prefix: tuple[str, ...]
) -> list[FailureCount]:
    found = [
        FailureCount(key=key, label=_label(key), students=n, attempts=total)
        for p, key, n, total in rows
        if p == problem_id and key.startswith(prefix)
    ]
    return sorted(found, key=lambda f: (-f.students, -f.attempts, f.key))


def _days(rows: list[tuple[datetime, str, int]], zone: ZoneInfo) -> list[DayKinds]:
    by_day: dict[date, dict[str, int]] = defaultdict(lambda: dict.fromkeys(rules.KINDS, 0))
    for hour, kind, n in rows:
        if kind in rules.KINDS:
            by_day[hour.astimezone(zone).date()][kind] += n
    if not by_day:
        return []
    last = max(by_day)
    first = max(min(by_day), last - timedelta(days=MAX_DAYS - 1))
    days = [first + timedelta(days=i) for i in range((last - first).days + 1)]
    return [DayKinds(day=d, counts=by_day.get(d) or dict.fromkeys(rules.KINDS, 0)) for d in days]


def _median(values: list[float]) -> float | None:
    return round(statistics.median(values), 1) if values else None


def _zone(course: Course) -> ZoneInfo:
    try:
        return ZoneInfo(course.timezone or "UTC")
    except (KeyError, ValueError):
        return ZoneInfo("UTC")


class _Read:
    """The rows of one assignment (optionally one problem), read once."""

    def __init__(
        self, session: Session, course: Course, assignment: Assignment, problem_id: int | None
    ) -> None:
        state.refresh(session, course, assignment)
        self.students = repository.active_students(session, course.id)
        self.progress = repository.progress_rows(session, course.id, assignment.id, problem_id)
        self.failures = repository.failure_totals(session, course.id, assignment.id, problem_id)
        self.kinds = repository.kind_totals(session, course.id, assignment.id, problem_id)
        self.now = datetime.now(tz=_zone(course))

    def numbers(
        self, problem: Problem
    ) -> tuple[ProblemNumbers, list[float], list[FailureCount], list[FailureCount]]:
        rows = [r for r in self.progress if r[0] == problem.id]
        solved = [r for r in rows if r[7] is not None]
        minutes = sorted(round((r[7] - r[5]).total_seconds() / 60, 1) for r in solved)  # type: ignore[operator]
        cases = _counts(self.failures, problem.id, ("hidden:", "public:"))
        broken = _counts(self.failures, problem.id, ("rule:",))
        numbers = ProblemNumbers(
            slug=problem.slug,
            title=problem.title,
            attempted=len(rows),
            solved=len(solved),
            median_minutes_to_solve=_median(minutes),
            median_attempts_to_solve=_median([float(r[8] or 0) for r in solved]),
            stuck=sum(1 for r in rows if self._stuck(r)),
            top_case=cases[0] if cases else None,
            top_rule=broken[0] if broken else None,
        )
        return numbers, minutes, cases, broken

    def _stuck(self, r: repository.ProgressRow) -> bool:
        return rules.is_stuck(r[7] is not None, r[4], r[12], r[11], self.now)

    def stuck(self, slugs: dict[int, str]) -> list[StuckStudent]:
        who = {u: (e, s) for u, e, s in self.students}
        out = [
            StuckStudent(
                user_id=r[1], email=who[r[1]][0], section=who[r[1]][1], problem=slugs[r[0]], failed=r[4],
                best_passed=r[9], best_total=r[10], since_best=r[12], last_at=r[6],
            )
            for r in self.progress
            if r[0] in slugs and r[1] in who and self._stuck(r)
        ]  # fmt: skip
        return sorted(out, key=lambda s: (-s.failed, s.email, s.problem))

    def not_started(self, problem_ids: set[int]) -> list[StudentRef]:
        started = {r[1] for r in self.progress if r[0] in problem_ids}
        return [StudentRef(user_id=u, email=e, section=s) for u, e, s in self.students if u not in started]


def assignment_analytics(session: Session, course: Course, assignment: Assignment) -> AssignmentAnalytics:
    problems = assignments_mod.assignment_problems(session, assignment)
    read = _Read(session, course, assignment, None)
    return AssignmentAnalytics(
        course_id=course.id,
        assignment_id=assignment.id,
        title=assignment.title,
        timezone=course.timezone or "UTC",
        students=len(read.students),
        problems=[read.numbers(p)[0] for p in problems],
        kinds=list(rules.KINDS),
        kinds_over_time=_days(read.kinds, _zone(course)),
        not_started=read.not_started({p.id for p in problems}),
        stuck=read.stuck({p.id: p.slug for p in problems}),
        computed_at=read.now,
    )


def problem_analytics(
    session: Session, course: Course, assignment: Assignment, slug: str
) -> ProblemAnalytics:
    problem = next(
        (p for p in assignments_mod.assignment_problems(session, assignment) if p.slug == slug), None
    )
    if problem is None:
        raise NotFound(f"The assignment has no problem {slug!r}.")
    read = _Read(session, course, assignment, problem.id)
    numbers, minutes, cases, broken = read.numbers(problem)
    return ProblemAnalytics(
        course_id=course.id,
        assignment_id=assignment.id,
        title=assignment.title,
        timezone=course.timezone or "UTC",
        students=len(read.students),
        problem=ProblemDetail(**numbers.model_dump(), cases=cases, rules=broken, minutes_to_solve=minutes),
        kinds=list(rules.KINDS),
        kinds_over_time=_days(read.kinds, _zone(course)),
        not_started=read.not_started({problem.id}),
        stuck=read.stuck({problem.id: problem.slug}),
        computed_at=read.now,
    )
