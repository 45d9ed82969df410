"""Who reads a problem's solutions and editorial: the one home of the unlock rule.

In this order:

1. The problem's gates come first, as for the problem itself: a course-only problem outside its
   course is a 404 (:func:`app.problems.service.get_published`), a Premium problem without Premium
   (or a course granting it) is a 403 ``premium_required`` (:func:`app.problems.service.require_access`).
2. **Held**: a course's active student, on a problem of an assignment whose instructor chose to
   hold solutions, reads none until that assignment closes for them (the end of its last late
   window, or its due time; their extension applied) — solved or not, and "give up" is refused.
3. **Open**: to the problem's owners and admins; to a learner who solved it (:mod:`app.progress`,
   the one home of "solved"); to one who gave up (recorded with its time).
4. Otherwise **locked**: solve it, or give up and show solutions.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy.orm import Session

from app.accounts.models import User
from app.courses import dates
from app.problems import visibility
from app.problems.models import Problem
from app.progress import repository as progress
from app.solutions import repository

OWNER = "owner"
SOLVED = "solved"
GAVE_UP = "gave_up"
LOCKED = "locked"
HELD = "held"


@dataclass(frozen=True)
class Opening:
    """Whether a reader sees a problem's solutions, and why (one of the constants above)."""

    reason: str
    held_until: datetime | None = None  # when HELD: the latest close among the holding assignments
    gave_up_at: datetime | None = None

    @property
    def open(self) -> bool:
        return self.reason in (OWNER, SOLVED, GAVE_UP)


def held_until(session: Session, problem: Problem, user: User, now: datetime) -> datetime | None:
    """The moment the held assignments holding ``problem`` all closed for ``user`` (a student), if
    that is still ahead of ``now``; None when no hold applies."""
    latest: datetime | None = None
    for course, assignment, extension in repository.held_assignments_of_student(session, user.id, problem.id):
        if course.ends_at is not None and now >= course.ends_at:
            continue
        closes = dates.effective(assignment, extension).closes_at
        if now <= closes and (latest is None or closes > latest):
            latest = closes
    return latest


def opening(session: Session, problem: Problem, user: User | None, now: datetime) -> Opening:
    """The unlock rule for a problem the reader may already see and work on (gates checked)."""
    if user is None:
        return Opening(LOCKED)
    if visibility.can_edit(session, problem, user):
        return Opening(OWNER)
    until = held_until(session, problem, user, now)
    if until is not None:
        return Opening(HELD, held_until=until)
    if progress.is_solved(session, user.id, problem.id):
        return Opening(SOLVED)
    given = repository.gave_up(session, user.id, problem.id)
    if given is not None:
        return Opening(GAVE_UP, gave_up_at=given.created_at)
    return Opening(LOCKED)
