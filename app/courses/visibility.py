"""Which of a student's submissions belong to a course: the one rule of what instructors may see.

A submission is the course's — and only then reaches its instructors, by any route: the
drill-down (page and API), scores, the gradebook and its CSV/XLSX (and so ``torchdrill course
export``), regrades and their dry runs — when all of these hold:

1. it is the student's own (a regrade's re-judged copies belong to the judge account);
2. it is on a problem of one of the course's assignments;
3. it was made inside that assignment's window for the student: from their release to the
   assignment's close (the end of the last late window, or the due time), both included, the
   student's extension applied (:func:`app.courses.dates.effective`);
4. it was made while the student was enrolled: inside one of their enrolment periods, from the
   moment they accepted (a join code or their invitation) until they left or were removed or
   blocked (:class:`app.courses.models.EnrolmentPeriod`).

So practice before joining, after leaving, outside an assignment's dates or on other problems is
never shown, and a learner enrolled today shows none of their earlier work. :func:`course_work`
computes the intervals once; :meth:`CourseWork.includes` (Python) and :meth:`CourseWork.where`
(SQL) are the same rule over them, side by side.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime

from sqlalchemy import ColumnElement, and_, false, or_
from sqlalchemy.orm import Session

from app.courses import dates as dates_mod
from app.courses import repository
from app.courses.models import Assignment, EnrolmentPeriod, Extension
from app.submissions.models import Submission


@dataclass(frozen=True, slots=True)
class Span:
    """A stretch of time in which a student's work on an assignment's problems is the course's."""

    start: datetime  # included: the later of the release and joining
    until: datetime  # included: the assignment's close for the student
    before: datetime | None  # excluded: when the student left (None: still enrolled)

    def holds(self, at: datetime) -> bool:
        return self.start <= at <= self.until and (self.before is None or at < self.before)


@dataclass(frozen=True)
class CourseWork:
    """The course's spans per (student, assignment), and each assignment's problems."""

    spans: dict[tuple[int, int], list[Span]] = field(default_factory=dict)
    problems: dict[int, frozenset[int]] = field(default_factory=dict)  # assignment id -> problem ids

    def counts_for(self, user_id: int, assignment_id: int, at: datetime) -> bool:
        """Whether work by ``user_id`` at ``at`` on one of the assignment's problems is the course's."""
        return any(span.holds(at) for span in self.spans.get((user_id, assignment_id), ()))

    def includes(self, submission: Submission) -> bool:
        """The rule in Python: whether instructors of the course may see ``submission``."""
        if submission.is_copy:
            return False
        return any(
            submission.problem_id in problem_ids
            and self.counts_for(submission.user_id, assignment_id, submission.created_at)
            for assignment_id, problem_ids in self.problems.items()
        )

    def where(self, user_id: int) -> ColumnElement[bool]:
        """The rule in SQL, for ``user_id``'s submissions (never true for anybody else's)."""
        clauses = []
        for assignment_id, problem_ids in self.problems.items():
            for span in self.spans.get((user_id, assignment_id), ()):
                parts = [
                    Submission.problem_id.in_(sorted(problem_ids)),
                    Submission.created_at >= span.start,
                    Submission.created_at <= span.until,
                ]
                if span.before is not None:
                    parts.append(Submission.created_at < span.before)
                clauses.append(and_(*parts))
        if not clauses:
            return false()
        return and_(Submission.user_id == user_id, or_(*clauses))


def _spans(window: dates_mod.Dates, periods: Sequence[EnrolmentPeriod]) -> list[Span]:
    out = []
    for period in periods:
        start = max(window.release_at, period.joined_at)
        if start > window.closes_at or (period.left_at is not None and start >= period.left_at):
            continue
        out.append(Span(start, window.closes_at, period.left_at))
    return out


def course_work(session: Session, assignments: Sequence[Assignment], user_ids: Sequence[int]) -> CourseWork:
    """The one function: which work of these students the assignments' course may see.

    ``assignments`` are the course's (or some of them: a regrade's one); the students' enrolment
    periods and extensions are read in two queries.
    """
    if not assignments or not user_ids:
        return CourseWork()
    course_ids = {a.course_id for a in assignments}
    assert len(course_ids) == 1, "one course at a time"
    periods: dict[int, list[EnrolmentPeriod]] = {}
    for period in repository.enrolment_periods(session, course_ids.pop(), user_ids):
        periods.setdefault(period.user_id, []).append(period)
    extensions: dict[tuple[int, int], Extension] = {
        (e.assignment_id, e.user_id): e for e in repository.extensions(session, [a.id for a in assignments])
    }
    spans: dict[tuple[int, int], list[Span]] = {}
    for assignment in assignments:
        standard = dates_mod.effective(assignment, None)
        for user_id in user_ids:
            if user_id not in periods:
                continue
            extension = extensions.get((assignment.id, user_id))
            window = standard if extension is None else dates_mod.effective(assignment, extension)
            found = _spans(window, periods[user_id])
            if found:
                spans[(user_id, assignment.id)] = found
    problems = {a.id: frozenset(link.problem_id for link in a.problems) for a in assignments}
    return CourseWork(spans=spans, problems=problems)
