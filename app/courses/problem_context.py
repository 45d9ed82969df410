"""A problem opened from an assignment (``/problems/<slug>?assignment=<id>``): the assignment's
deadline for this viewer and the way back.

Only for a member of the assignment's course who may see the assignment (its instructors; its
active students once it is released to them, by their own dates) and only when the assignment
holds the problem. Anything else — an unknown or another course's assignment, a guessed id, a
problem it does not hold, text that is not an id — is ignored: the page is the plain problem page,
and says nothing about the assignment.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy.orm import Session

from app.accounts.models import User
from app.courses import assignments, dates, enrolment, forms, repository
from app.courses.models import ACTIVE, Assignment, Course
from app.problems.models import Problem

MAX_ID = 2**31 - 1


@dataclass(frozen=True)
class FromAssignment:
    course: Course
    assignment: Assignment
    dates: dates.Dates  # this viewer's (an extension's for a student who has one)
    instructor: bool
    credit_now: float  # what an accepted submission earns now (percent)
    window_until: datetime | None  # until when that credit holds; None past the last window

    @property
    def url(self) -> str:
        return f"/courses/{self.course.id}/assignments/{self.assignment.id}"


def parse_id(raw: str | None) -> int | None:
    """The query's assignment id, or None for anything that is not one."""
    raw = (raw or "").strip()
    if not raw.isascii() or not raw.isdigit() or len(raw) > 10:
        return None
    value = int(raw)
    return value if 1 <= value <= MAX_ID else None


def from_assignment(
    session: Session, raw_id: str | None, problem: Problem, viewer: User | None, now: datetime
) -> FromAssignment | None:
    assignment_id = parse_id(raw_id)
    if assignment_id is None or viewer is None:
        return None
    assignment = repository.get_assignment(session, assignment_id)
    if assignment is None or problem.id not in {link.problem_id for link in assignment.problems}:
        return None
    course = repository.get_course(session, assignment.course_id)
    if course is None:
        return None
    member = repository.membership(session, course.id, viewer.id)
    if member is None or member.status != ACTIVE:
        return None
    instructor = enrolment.is_instructor(session, course, viewer)
    effective = (
        dates.effective(assignment, None)
        if instructor
        else assignments.student_dates(session, assignment, viewer)
    )
    if not instructor and not effective.released(now):
        return None
    credit, until = effective.window_at(now)
    return FromAssignment(course, assignment, effective, instructor, credit, until)


def page_context(
    session: Session, raw_id: str | None, problem: Problem, viewer: User | None, now: datetime
) -> dict[str, object]:
    """What the problem page adds for ``courses/_from_assignment.html`` (nothing when ignored)."""
    found = from_assignment(session, raw_id, problem, viewer, now)
    if found is None:
        return {}
    return {"from_assignment": found, "iso_utc": forms.iso_utc, "utc": forms.utc_text}
