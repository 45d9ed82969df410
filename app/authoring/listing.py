"""The problems an author may edit, listed and paged: their own (admins: all), drafts and
unpublished ones included, each with its status (draft, published, unpublished changes)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy.orm import Session

from app.accounts.models import User
from app.authoring import repository
from app.authoring.models import ProblemDraft
from app.kit.paging import Page, decode_cursor, page_of
from app.problems.models import Problem


@dataclass(frozen=True)
class ProblemRow:
    slug: str
    title: str
    difficulty: str
    category: str
    published: bool
    premium: bool
    live_version: int | None
    has_draft: bool
    updated_at: datetime
    course_only: bool

    @property
    def status(self) -> str:
        if self.published and self.live_version is not None:
            return "published" + (" (unpublished changes)" if self.has_draft else "")
        return "draft" if self.live_version is None else "unpublished"


def _owner_filter(user: User) -> int | None:
    """Admins list every problem; an instructor the problems they own."""
    return None if user.is_admin else user.id


def list_problems(session: Session, user: User) -> list[ProblemRow]:
    """The problems ``user`` may edit, drafts and unpublished ones included."""
    every = repository.list_all_problems(session, owner_id=_owner_filter(user))
    drafts = repository.drafts_by_problem(session, [p.id for p in every])
    return _rows(every, drafts, repository.version_numbers(session))


AUTHORING_KEY = (bool, str, str, int)  # the shape of repository.AuthoringKey, for decoding a cursor


def page_of_problems(session: Session, user: User, after: str | None, limit: int) -> Page[ProblemRow]:
    """One page of :func:`list_problems` (same order) after the cursor ``after``; only the page's
    drafts and versions are read."""
    key = decode_cursor(after, AUTHORING_KEY) if after else None
    found = page_of(
        repository.list_all_problems(session, owner_id=_owner_filter(user), after=key, limit=limit + 1),
        limit,
        repository.authoring_key,
    )
    drafts = repository.drafts_by_problem(session, [p.id for p in found.items])
    numbers = repository.version_numbers(
        session, [p.current_version_id for p in found.items if p.current_version_id]
    )
    return Page(_rows(found.items, drafts, numbers), found.cursor)


def _rows(
    problems: Sequence[Problem], drafts: dict[int, ProblemDraft], numbers: dict[int, int]
) -> list[ProblemRow]:
    return [
        ProblemRow(
            slug=p.slug,
            title=p.title,
            difficulty=p.difficulty,
            category=p.category,
            published=p.published,
            premium=p.premium,
            live_version=numbers.get(p.current_version_id) if p.current_version_id else None,
            has_draft=p.id in drafts,
            updated_at=max(p.updated_at, drafts[p.id].updated_at) if p.id in drafts else p.updated_at,
            course_only=p.course_only,
        )
        for p in problems
    ]
