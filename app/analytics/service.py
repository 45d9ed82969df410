"""An assignment's analytics, read from the maintained state (``app.analytics.state``).

Reading writes nothing and recomputes nothing (verdicts and changes of the course's work keep the
state, ``app.analytics.state``): a few reads over the class's rows: one of a few columns per
student and problem (counts, medians and stuck counts added up here), the first stuck and
not-started students (:data:`LIST_SHOWN`, unless every one is asked for) and the class's totals of
failures by case and rule and of kinds by hour.
"""

from __future__ import annotations

import statistics
from collections import Counter, defaultdict
from datetime import date, datetime, timedelta
from zoneinfo import ZoneInfo

from sqlalchemy.orm import Session

from app.analytics import report_queries, rules
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
LIST_SHOWN = 50  # stuck and not-started students listed unless every one is asked for


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
    day_of: dict[datetime, date] = {}  # an hour's day, once per hour (not per kind)
    for hour, kind, n in rows:
        if kind in rules.KINDS:
            day = day_of.get(hour)
            if day is None:
                day = day_of[hour] = hour.astimezone(zone).date()
            by_day[day][kind] += n
    if not by_day:
        return []
    last = max(by_day)
    first = max(min(by_day), last - timedelta(days=MAX_DAYS - 1))
    days = [first + timedelta(days=i) for i in range((last - first).days + 1)]
    return [DayKinds(day=d, counts=by_day.get(d) or dict.fromkeys(rules.KINDS, 0)) for d in days]


def _zone(course: Course) -> ZoneInfo:
    try:
        return ZoneInfo(course.timezone or "UTC")
    except (KeyError, ValueError):
        return ZoneInfo("UTC")


class _Read:
    """The figures of one assignment (optionally one problem): reads only (the state is kept up to
    date where verdicts and changes of the course's work are written)."""

    def __init__(
        self,
        session: Session,
        course: Course,
        assignment: Assignment,
        problem_id: int | None,
        shown: int | None,
    ) -> None:
        self.now = datetime.now(tz=_zone(course))
        ids = (course.id, assignment.id)
        self.students = report_queries.count_active(session, course.id)
        self.counts: dict[int, tuple[int, int]] = {}
        self.stuck_counts: Counter[int] = Counter()
        solvers: dict[int, list[tuple[float, int]]] = defaultdict(list)
        for pid, solved, minutes, attempts, stuck in report_queries.progress_figures(
            session, *ids, self.now, problem_id
        ):
            attempted, solved_n = self.counts.get(pid, (0, 0))
            self.counts[pid] = (attempted + 1, solved_n + solved)
            self.stuck_counts[pid] += stuck
            if solved:
                solvers[pid].append((minutes or 0.0, attempts or 0))
        self.medians = {
            pid: (statistics.median(m for m, _a in found), statistics.median(float(a) for _m, a in found))
            for pid, found in solvers.items()
        }
        self.times = solvers.get(problem_id, []) if problem_id is not None else []
        self.stuck_rows = report_queries.stuck(session, *ids, self.now, problem_id, shown)
        self.failures = report_queries.failure_totals(session, assignment.id, problem_id)
        self.kinds = report_queries.kind_totals(session, assignment.id, problem_id)
        self.gave_up = report_queries.give_ups(session, course.id, problem_id)

    def numbers(
        self, problem: Problem
    ) -> tuple[ProblemNumbers, list[float], list[FailureCount], list[FailureCount]]:
        attempted, solved = self.counts.get(problem.id, (0, 0))
        minutes = sorted(round(m, 1) for m, _n in self.times)
        median = self.medians.get(problem.id)
        cases = _counts(self.failures, problem.id, ("hidden:", "public:"))
        broken = _counts(self.failures, problem.id, ("rule:",))
        numbers = ProblemNumbers(
            slug=problem.slug,
            title=problem.title,
            attempted=attempted,
            solved=solved,
            median_minutes_to_solve=None if median is None else round(median[0], 1),
            median_attempts_to_solve=None if median is None else round(median[1], 1),
            stuck=self.stuck_counts.get(problem.id, 0),
            gave_up=self.gave_up.get(problem.id, 0),
            top_case=cases[0] if cases else None,
            top_rule=broken[0] if broken else None,
        )
        return numbers, minutes, cases, broken

    def stuck(self, slugs: dict[int, str]) -> list[StuckStudent]:
        return [
            StuckStudent(
                user_id=user, email=email, section=section or "", problem=slugs[p], failed=failed,
                best_passed=best, best_total=total, since_best=since, last_at=last,
            )
            for p, user, email, section, failed, best, total, since, last in self.stuck_rows
            if p in slugs
        ]  # fmt: skip


def _not_started(
    session: Session, course: Course, assignment: Assignment, problem_ids: list[int], shown: int | None
) -> tuple[list[StudentRef], int]:
    """The first ``shown`` (None: all) students who have not started, and how many in all."""
    rows = report_queries.not_started(session, course.id, assignment.id, problem_ids, shown)
    total = (
        len(rows)
        if shown is None or len(rows) < shown
        else report_queries.count_not_started(session, course.id, assignment.id, problem_ids)
    )
    return [StudentRef(user_id=u, email=e, section=s) for u, e, s in rows], total


def assignment_analytics(
    session: Session, course: Course, assignment: Assignment, shown: int | None = LIST_SHOWN
) -> AssignmentAnalytics:
    """The assignment's figures; the stuck and not-started lists hold their first ``shown``
    students (None: every one) and say how many there are in all."""
    problems = assignments_mod.assignment_problems(session, assignment)
    read = _Read(session, course, assignment, None, shown)
    not_started, not_started_total = _not_started(
        session, course, assignment, [p.id for p in problems], shown
    )
    return AssignmentAnalytics(
        course_id=course.id,
        assignment_id=assignment.id,
        title=assignment.title,
        timezone=course.timezone or "UTC",
        students=read.students,
        problems=[read.numbers(p)[0] for p in problems],
        kinds=list(rules.KINDS),
        kinds_over_time=_days(read.kinds, _zone(course)),
        not_started=not_started,
        not_started_total=not_started_total,
        stuck=read.stuck({p.id: p.slug for p in problems}),
        stuck_total=sum(read.stuck_counts.values()),
        computed_at=read.now,
    )


def problem_analytics(
    session: Session, course: Course, assignment: Assignment, slug: str, shown: int | None = LIST_SHOWN
) -> ProblemAnalytics:
    """One problem's figures (the lists as :func:`assignment_analytics`'s)."""
    problem = next(
        (p for p in assignments_mod.assignment_problems(session, assignment) if p.slug == slug), None
    )
    if problem is None:
        raise NotFound(f"The assignment has no problem {slug!r}.")
    read = _Read(session, course, assignment, problem.id, shown)
    numbers, minutes, cases, broken = read.numbers(problem)
    not_started, not_started_total = _not_started(session, course, assignment, [problem.id], shown)
    return ProblemAnalytics(
        course_id=course.id,
        assignment_id=assignment.id,
        title=assignment.title,
        timezone=course.timezone or "UTC",
        students=read.students,
        problem=ProblemDetail(**numbers.model_dump(), cases=cases, rules=broken, minutes_to_solve=minutes),
        kinds=list(rules.KINDS),
        kinds_over_time=_days(read.kinds, _zone(course)),
        not_started=not_started,
        not_started_total=not_started_total,
        stuck=read.stuck({problem.id: problem.slug}),
        stuck_total=numbers.stuck,
        computed_at=read.now,
    )
