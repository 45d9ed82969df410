"""Assignments: creating them, extensions, and what a student may see (nothing before release)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy.orm import Session

from app.accounts.models import User
from app.courses import dates as dates_mod
from app.courses import enrolment, repository, scoring, visibility, work_changes
from app.courses.models import AFTER_LAST, Assignment, AssignmentProblem, Course, Extension
from app.kit.errors import InvalidInput, NotFound
from app.kit.fields import check_one_line
from app.kit.paging import Page, decode_cursor, page_of
from app.problems import service as problems
from app.problems.models import Problem

MAX_PROBLEMS = 50


@dataclass(frozen=True)
class Checked:
    """An assignment's fields checked: what creating and editing store."""

    title: str
    problems: list[Problem]
    release: datetime
    due: datetime
    late: list[dict[str, Any]]
    after_last: str


def check_fields(
    session: Session,
    course: Course,
    *,
    title: str,
    problem_slugs: Sequence[str],
    release_at: Any,
    due_at: Any,
    late: Any = None,
    after_last: str = "zero",
) -> Checked:
    """Every rule of an assignment's fields; each refusal names its field (``InvalidInput.field``)."""
    title = (title or "").strip()
    if not title or len(title) > 200:
        raise InvalidInput("title is required (at most 200 characters).", field="title")
    check_one_line(title, "title")
    if not problem_slugs or len(problem_slugs) > MAX_PROBLEMS:
        raise InvalidInput(f"problems must list 1 to {MAX_PROBLEMS} problem slugs.", field="problems")
    if len(set(problem_slugs)) != len(problem_slugs):
        raise InvalidInput("problems lists a slug twice.", field="problems")
    if after_last not in AFTER_LAST:
        raise InvalidInput("after_last must be 'zero' or 'closed'.", field="after_last")
    release = dates_mod.parse_time(release_at, "release_at")
    due = dates_mod.parse_time(due_at, "due_at")
    if due <= release:
        raise InvalidInput("due_at must come after release_at.", field="due_at")
    windows = dates_mod.parse_late(late, due)
    found: list[Problem] = []
    for slug in problem_slugs:
        try:
            found.append(problems.get_for_course(session, str(slug), course.id))
        except NotFound:
            raise InvalidInput(
                f"There is no published problem called {str(slug)[:80]!r}.", field="problems"
            ) from None
    return Checked(title, found, release, due, windows, after_last)


def create_assignment(
    session: Session,
    course: Course,
    *,
    title: str,
    problem_slugs: Sequence[str],
    release_at: Any,
    due_at: Any,
    late: Any = None,
    after_last: str = "zero",
    lti_line_item_id: str | None = None,
) -> Assignment:
    """A problem set; the caller has checked that the actor instructs ``course``."""
    if lti_line_item_id is not None:
        check_one_line(lti_line_item_id, "lti_line_item_id")
    checked = check_fields(
        session, course, title=title, problem_slugs=problem_slugs, release_at=release_at,
        due_at=due_at, late=late, after_last=after_last,
    )  # fmt: skip
    assignment = repository.add(
        session,
        Assignment(
            course_id=course.id,
            title=checked.title,
            release_at=checked.release,
            due_at=checked.due,
            late=checked.late,
            after_last=checked.after_last,
            lti_line_item_id=lti_line_item_id,
        ),
    )
    _link(session, assignment, checked.problems)
    work_changes.changed(session, course.id, [assignment.id])
    return assignment


def update_assignment(session: Session, assignment: Assignment, checked: Checked) -> Assignment:
    """Edit an assignment (the caller instructs its course). Scores are recomputed from the stored
    submissions whenever they are read, so new dates or problems apply to every past attempt."""
    assignment.title = checked.title
    assignment.release_at, assignment.due_at = checked.release, checked.due
    assignment.late, assignment.after_last = checked.late, checked.after_last
    assignment.problems.clear()
    session.flush()  # the old links are gone before the new ones (same keys) are inserted
    _link(session, assignment, checked.problems)
    work_changes.changed(session, assignment.course_id, [assignment.id])
    return assignment


def _link(session: Session, assignment: Assignment, found: Sequence[Problem]) -> None:
    for position, problem in enumerate(found):
        session.add(AssignmentProblem(assignment_id=assignment.id, problem_id=problem.id, position=position))
    session.flush()
    session.refresh(assignment)


def set_extension(
    session: Session,
    assignment: Assignment,
    user_id: int,
    *,
    release_at: Any = None,
    due_at: Any = None,
    late: Any = None,
) -> Extension:
    """Override any of the student's dates; the others stay the assignment's."""
    member = repository.membership(session, assignment.course_id, user_id)
    if member is None or member.role != "student":
        raise NotFound("That student is not in this course.")
    release = dates_mod.parse_time(release_at, "release_at") if release_at else None
    due = dates_mod.parse_time(due_at, "due_at") if due_at else None
    windows = dates_mod.parse_late(late, due or assignment.due_at) if late is not None else None
    ext = repository.extension(session, assignment.id, user_id)
    if ext is None:
        ext = repository.add(session, Extension(assignment_id=assignment.id, user_id=user_id))
    ext.release_at, ext.due_at, ext.late = release, due, windows
    session.flush()
    work_changes.changed(session, assignment.course_id, [assignment.id], [user_id])
    return ext


def student_dates(session: Session, assignment: Assignment, user: User) -> dates_mod.Dates:
    return dates_mod.effective(assignment, repository.extension(session, assignment.id, user.id))


def visible_assignments(session: Session, course: Course, user: User, now: datetime) -> list[Assignment]:
    """Instructors see every assignment; a student only released ones (by their own dates)."""
    every = list(repository.assignments(session, course.id))
    if enrolment.is_instructor(session, course, user):
        return every
    return [a for a in every if student_dates(session, a, user).released(now)]


ASSIGNMENT_KEY = (datetime, int)  # the shape of repository.AssignmentKey, for decoding a cursor


def page_of_visible(
    session: Session, course: Course, user: User, now: datetime, after: str | None, limit: int
) -> Page[Assignment]:
    """One page of :func:`visible_assignments` (same order and rule), after the cursor ``after``."""
    key = decode_cursor(after, ASSIGNMENT_KEY) if after else None
    released_for = None if enrolment.is_instructor(session, course, user) else (user.id, now)
    rows = repository.assignments_page(
        session, course.id, released_for=released_for, after=key, limit=limit + 1
    )
    return page_of(rows, limit, repository.assignment_key)


def assignment_for(
    session: Session, course: Course, assignment_id: int, user: User, now: datetime
) -> Assignment:
    assignment = repository.get_assignment(session, assignment_id)
    if assignment is None or assignment.course_id != course.id:
        raise NotFound(f"There is no assignment #{assignment_id} in this course.")
    if not enrolment.is_instructor(session, course, user) and not student_dates(
        session, assignment, user
    ).released(now):
        raise NotFound(f"There is no assignment #{assignment_id} in this course.")
    return assignment


def assignment_problems(session: Session, assignment: Assignment) -> list[Problem]:
    by_id = {p.id: p for p in problems.problems_by_ids(session, {p.problem_id for p in assignment.problems})}
    return [by_id[link.problem_id] for link in assignment.problems if link.problem_id in by_id]


def problem_slugs(session: Session, listed: Sequence[Assignment]) -> dict[int, list[str]]:
    """``{assignment id: its problems' slugs in order}`` for many assignments, in one query."""
    wanted = {link.problem_id for a in listed for link in a.problems}
    slugs = {p.id: p.slug for p in problems.problems_by_ids(session, wanted)}
    return {a.id: [slugs[link.problem_id] for link in a.problems if link.problem_id in slugs] for a in listed}


@dataclass(frozen=True)
class ProblemStatus:
    slug: str
    title: str
    premium: bool
    credit: float
    status: str  # "solved", "attempted", "todo"


@dataclass(frozen=True)
class StudentAssignment:
    assignment: Assignment
    dates: dates_mod.Dates
    score: scoring.AssignmentScore
    problems: list[ProblemStatus]


def student_view(session: Session, assignment: Assignment, user: User) -> StudentAssignment:
    """The assignment as one student sees it: their dates, score and per-problem status, from the
    same work their instructors see (attempts before joining or outside the dates do not count)."""
    score = scoring.compute(session, [assignment], [user.id])[(user.id, assignment.id)]
    linked = assignment_problems(session, assignment)
    work = visibility.course_work(session, [assignment], [user.id])
    attempted = {
        s.problem_id
        for s in repository.attempts(session, user.id, [p.id for p in linked])
        if work.includes(s)
    }
    rows = []
    for problem in linked:
        credit = score.problems.get(problem.id, 0.0)
        status = "solved" if credit > 0 else ("attempted" if problem.id in attempted else "todo")
        rows.append(ProblemStatus(problem.slug, problem.title, problem.premium, credit, status))
    return StudentAssignment(assignment, student_dates(session, assignment, user), score, rows)


def late_view(assignment: Assignment) -> list[dict[str, Any]]:
    return [{"until": w["until"], "credit": w["credit"]} for w in assignment.late or []]


def extensions_with_students(session: Session, assignment: Assignment) -> list[tuple[Extension, str]]:
    """The assignment's extensions with each student's email, for the instructor's page."""
    emails = {u.id: u.email for _, u in repository.active_students(session, assignment.course_id)}
    rows = [
        (e, emails.get(e.user_id, f"user #{e.user_id}"))
        for e in repository.extensions(session, [assignment.id])
    ]
    return sorted(rows, key=lambda row: row[1])
