"""The gradebook: students x assignments with totals, filters, drill-down and CSV / XLSX exports.

Every number comes from :func:`app.courses.scoring.compute` at the moment it is asked for, so the
page, the JSON, the CSV and a recomputation always agree.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy.orm import Session

from app.accounts.models import User
from app.courses import assignments as assignments_mod
from app.courses import repository, scoring, visibility
from app.courses.models import Assignment, Course, CourseMember
from app.kit import spreadsheets
from app.kit.errors import InvalidInput, NotFound
from app.kit.paging import decode_cursor, page_of
from app.submissions import service as submissions

EXPORT_FORMATS = ("csv", "xlsx")


@dataclass(frozen=True)
class Row:
    user_id: int
    name: str
    email: str
    section: str
    scores: list[float]
    total: float


@dataclass(frozen=True)
class Gradebook:
    course: Course
    assignments: list[Assignment]
    rows: list[Row]
    sections: list[str] = field(default_factory=list)


def display_name(email: str) -> str:
    """Accounts have no separate name yet: the part of the email before the @."""
    return email.split("@", 1)[0]


def build(session: Session, course: Course, *, section: str | None = None, q: str | None = None) -> Gradebook:
    """The caller has checked the viewer instructs ``course``; filters narrow the rows only."""
    every = list(repository.active_students(session, course.id))
    needle = (q or "").strip().lower()
    shown = [
        (member, user)
        for member, user in every
        if (not section or member.section == section) and (not needle or needle in user.email.lower())
    ]
    listed = list(repository.assignments(session, course.id))
    sections = sorted({m.section for m, _ in every if m.section})
    return Gradebook(course=course, assignments=listed, rows=_rows(session, listed, shown), sections=sections)


def _rows(session: Session, listed: list[Assignment], students: list[tuple[CourseMember, User]]) -> list[Row]:
    """One row per student, scored now (only these students' submissions are read)."""
    scores = scoring.compute(session, listed, [u.id for _, u in students])
    rows = []
    for member, user in students:
        values = [scores[(user.id, a.id)].percent for a in listed]
        rows.append(
            Row(user.id, display_name(user.email), user.email, member.section, values, scoring.total(values))
        )
    return rows


def sections(session: Session, course: Course) -> list[str]:
    """Every section of the course's active students (for the filter, whatever page is shown)."""
    return repository.sections(session, course.id)


STUDENT_KEY = (str, int)  # the shape of repository.StudentKey, for decoding a cursor


def page(
    session: Session,
    course: Course,
    *,
    section: str | None = None,
    q: str | None = None,
    after: str | None = None,
    limit: int,
) -> tuple[Gradebook, str | None]:
    """One page of the gradebook's rows (same order, filters and scores as :func:`build`), and the
    cursor of the next page; only the page's students are scored. ``sections`` is left empty."""
    key = decode_cursor(after, STUDENT_KEY) if after else None
    needle = (q or "").strip() or None
    found = repository.students_page(
        session, course.id, section=section or None, text=needle, after=key, limit=limit + 1
    )
    students = page_of(found, limit, repository.student_key)
    listed = list(repository.assignments(session, course.id))
    return Gradebook(course, listed, _rows(session, listed, students.items)), students.cursor


def page_range(
    session: Session, course: Course, *, section: str | None, q: str | None, after: str | None, shown: int
) -> tuple[int, int, int]:
    """(first, last, total): which of the filtered students a page of ``shown`` rows after the
    cursor ``after`` holds, counted from 1 (two counts over the course's roster)."""
    key = decode_cursor(after, STUDENT_KEY) if after else None
    needle = (q or "").strip() or None
    before, total = repository.count_students(
        session, course.id, section=section or None, text=needle, upto=key
    )
    return before + 1, before + shown, total


def as_json(book: Gradebook) -> dict[str, Any]:
    return {
        "course": {"id": book.course.id, "title": book.course.title},
        "assignments": [
            {"id": a.id, "title": a.title, "due_at": a.due_at.isoformat()} for a in book.assignments
        ],
        "students": [
            {
                "id": r.user_id,
                "name": r.name,
                "email": r.email,
                "section": r.section,
                "scores": {str(a.id): s for a, s in zip(book.assignments, r.scores, strict=True)},
                "total": r.total,
            }
            for r in book.rows
        ],
    }


def _table(book: Gradebook) -> list[list[Any]]:
    header: list[Any] = ["name", "email", "id", "section", *[a.title for a in book.assignments], "total"]
    return [header] + [[r.name, r.email, r.user_id, r.section, *r.scores, r.total] for r in book.rows]


def to_csv(book: Gradebook) -> bytes:
    """UTF-8 with a BOM; one column per assignment (``app.kit.spreadsheets``: quoted, neutralised)."""
    return spreadsheets.to_csv(_table(book))


def to_xlsx(book: Gradebook) -> bytes:
    return spreadsheets.to_xlsx(_table(book), "Gradebook")


def export(book: Gradebook, fmt: str) -> tuple[bytes, str, str]:
    """(content, media type, file extension) for ``csv`` or ``xlsx``."""
    if fmt == "csv":
        return to_csv(book), spreadsheets.CSV_MEDIA_TYPE, "csv"
    if fmt == "xlsx":
        return to_xlsx(book), spreadsheets.XLSX_MEDIA_TYPE, "xlsx"
    raise InvalidInput(f"format must be one of {', '.join(EXPORT_FORMATS)}.")


@dataclass(frozen=True)
class ProblemCredit:
    slug: str
    title: str
    credit: float


@dataclass(frozen=True)
class StudentDrillDown:
    """A student's credit on every assignment problem, and one page of their attempts on them."""

    course: Course
    student_id: int
    email: str
    section: str
    assignments: list[tuple[Assignment, float, list[ProblemCredit]]]
    attempts: list[dict[str, Any]]  # the submission view (+ code), newest first
    cursor: str | None  # of the next page of attempts (None: these are the oldest)
    titles: dict[str, str]  # problem slug -> title, for the attempts' headings


def submission_view(submission: Any, slug: str) -> dict[str, Any]:
    """The one call into the submissions view model: verdict, per-case results, plus the code."""
    view = submissions.to_view(submission, slug)
    view["code"] = submission.code
    return view


ATTEMPT_KEY = (datetime, int)  # the shape of repository.AttemptKey, for decoding a cursor


def drill_down(
    session: Session, course: Course, student_id: int, *, after: str | None = None, limit: int
) -> StudentDrillDown:
    """A student's credit per assignment problem (every one: a course's worth), and ``limit`` of
    their attempts that are the course's (:mod:`app.courses.visibility`), newest first, after the
    cursor ``after`` (code and per-case results included: the part that grows, so the part that
    pages). Any student member (also one who left or was removed): only work done while enrolled."""
    key = decode_cursor(after, ATTEMPT_KEY) if after else None
    member = repository.membership(session, course.id, student_id)
    student = repository.get_user(session, student_id)
    if member is None or member.role != "student" or student is None:
        raise NotFound("That student is not in this course.")
    listed = list(repository.assignments(session, course.id))
    scores = scoring.compute(session, listed, [student_id])
    parts = []
    slugs: dict[int, str] = {}
    titles: dict[str, str] = {}
    for assignment in listed:
        score = scores[(student_id, assignment.id)]
        linked = assignments_mod.assignment_problems(session, assignment)
        slugs |= {p.id: p.slug for p in linked}
        titles |= {p.slug: p.title for p in linked}
        credits = [ProblemCredit(p.slug, p.title, score.problems.get(p.id, 0.0)) for p in linked]
        parts.append((assignment, score.percent, credits))
    work = visibility.course_work(session, listed, [student_id])
    found = repository.attempts_page(session, work.where(student_id), after=key, limit=limit + 1)
    page = page_of(found, limit, repository.attempt_key)
    attempts = [submission_view(s, slugs[s.problem_id]) for s in page.items]
    return StudentDrillDown(
        course, student_id, student.email, member.section, parts, attempts, page.cursor, titles
    )
