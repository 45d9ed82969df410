"""Who may see a problem, and who may edit one: the one home of both rules.

- A published *site-wide* problem (``course_only`` false) is everyone's: lists, tracks, search,
  the problem page, submissions, hints.
- A *course-only* problem is seen only inside its course: by the course's active instructors, by
  its active students once an assignment holding it is released to them, by the problem's owners
  and by admins. Everyone else gets the same 404 as for a slug that does not exist, so a guessed
  slug tells nothing. It never joins a public list or track until an admin publishes it site-wide.
- A problem is *edited* by its owners (its author and the co-authors they add) and by admins; the
  shipped bank has no owners, so it belongs to admins.

What "inside the course" means is decided by ``app.courses`` (a domain above this one), which
registers its rules with :func:`install_course_rules` at start-up (``app.courses.access``). Until
it does, nobody but owners and admins sees a course-only problem: the rule fails closed.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy.orm import Session

from app.accounts.models import User
from app.problems import repository
from app.problems.models import Problem


@dataclass(frozen=True)
class CourseRules:
    # (session, course id, problem id, viewer, now) -> the viewer sees the problem inside the course
    sees: Callable[[Session, int, int, User, datetime], bool]
    # (session, course id, user) -> the user instructs the course (may put problems in it)
    teaches: Callable[[Session, int, User], bool]
    # (session, user) -> (id, title) of the courses the user instructs
    taught: Callable[[Session, User], list[tuple[int, str]]]


_NOBODY = CourseRules(sees=lambda *_: False, teaches=lambda *_: False, taught=lambda *_: [])
_rules: list[CourseRules] = [_NOBODY]


def install_course_rules(rules: CourseRules) -> None:
    _rules[0] = rules


def is_owner(session: Session, problem: Problem, user: User | None) -> bool:
    return user is not None and repository.owner_role(session, problem.id, user.id) is not None


def can_edit(session: Session, problem: Problem, user: User | None) -> bool:
    """Admins edit everything; instructors only the problems they own (author or co-author)."""
    if user is None or not user.is_staff:
        return False
    return user.is_admin or is_owner(session, problem, user)


def can_see(session: Session, problem: Problem, viewer: User | None, now: datetime) -> bool:
    """Whether ``viewer`` may know the problem exists (publication is checked by the caller)."""
    if not problem.course_only:
        return True
    if viewer is None:
        return False
    if viewer.is_admin or is_owner(session, problem, viewer):
        return True
    if problem.course_id is None:  # its course was deleted: owners and admins only
        return False
    return _rules[0].sees(session, problem.course_id, problem.id, viewer, now)


def belongs_in(problem: Problem, course_id: int) -> bool:
    """Whether a course may put the problem in its assignments: site-wide, or course-only in it."""
    return not problem.course_only or problem.course_id == course_id


def teaches(session: Session, course_id: int, user: User) -> bool:
    """Whether ``user`` instructs course ``course_id`` (admins: any course)."""
    return user.is_admin or _rules[0].teaches(session, course_id, user)


def courses_taught(session: Session, user: User) -> list[tuple[int, str]]:
    """(id, title) of the courses ``user`` instructs: where their new problems may go."""
    return _rules[0].taught(session, user)
