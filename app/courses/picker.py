"""The problem picker: which problems an instructor may put in a course's assignments, searched.

The rule is the one assignments enforce (``problems.service.get_for_course`` through
``visibility.belongs_in``): published, live, and site-wide or course-only in this very course.
Premium problems are offered too, marked: enrolled students work on an assignment's Premium
problems through the course (``app.courses.access``). The page lists every choice in a plain
``<select multiple>`` (the picker without JavaScript); ``course-picker.js`` searches them through
``GET /courses/<id>/problem-choices?q=`` and keeps the chosen ones in order.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

from sqlalchemy.orm import Session

from app.courses.models import Course
from app.problems import service as problems
from app.problems.models import Problem

SEARCH_LIMIT = 20  # choices per search answer
ALL_LIMIT = 2000  # the no-script list: every choice (the bank has ~60, a course's own a few)


@dataclass(frozen=True)
class Choice:
    slug: str
    title: str
    difficulty: str
    premium: bool
    course_only: bool  # this course's own problem (nobody outside the course sees it)

    @classmethod
    def of(cls, problem: Problem) -> Choice:
        return cls(problem.slug, problem.title, problem.difficulty, problem.premium, problem.course_only)

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def search(session: Session, course: Course, q: str = "", limit: int = SEARCH_LIMIT) -> list[Choice]:
    """The choices whose title or slug holds ``q`` (all of them for an empty ``q``), at most ``limit``."""
    return [Choice.of(p) for p in problems.usable_in_course(session, course.id, q, limit)]


def every_choice(session: Session, course: Course) -> list[Choice]:
    return search(session, course, "", ALL_LIMIT)


def chosen(session: Session, course: Course, slugs: Sequence[str]) -> list[Choice]:
    """The typed or picked slugs that are choices, in their order (unknown ones are left to the
    form's error, which names them)."""
    by_slug = {c.slug: c for c in every_choice(session, course)}
    return [by_slug[s] for s in slugs if s in by_slug]
