"""Problems as learners see them: listing, filtering, the problem page and the premium gate."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime

from sqlalchemy.orm import Session

from app.accounts.models import User
from app.accounts.service import is_premium
from app.kit.errors import InvalidInput, NotFound, PremiumRequired
from app.kit.markdown import Section, preview_markdown, render_markdown, split_sections
from app.problems import repository
from app.problems.models import Problem, ProblemVersion
from runner.problem import DIFFICULTIES, ProblemFiles, build_problem

MAX_SEARCH = 100


@dataclass(frozen=True)
class ProblemFilters:
    difficulty: str | None = None
    category: str | None = None
    tag: str | None = None
    q: str | None = None

    @classmethod
    def parse(
        cls, difficulty: str | None, category: str | None, tag: str | None, q: str | None
    ) -> ProblemFilters:
        """Normalise query parameters; an unknown difficulty is a clear error, not an empty list."""

        def clean(value: str | None) -> str | None:
            value = (value or "").strip()
            return value or None

        difficulty = clean(difficulty)
        if difficulty is not None:
            difficulty = difficulty.lower()
            if difficulty not in DIFFICULTIES:
                raise InvalidInput(f"Unknown difficulty {difficulty!r}: use one of {', '.join(DIFFICULTIES)}.")
        q = clean(q)
        if q is not None and len(q) > MAX_SEARCH:
            raise InvalidInput(f"Search text is limited to {MAX_SEARCH} characters.")
        return cls(difficulty=difficulty, category=clean(category), tag=clean(tag), q=q)

    @property
    def active(self) -> bool:
        return any((self.difficulty, self.category, self.tag, self.q))


@dataclass(frozen=True)
class ProblemCard:
    slug: str
    title: str
    difficulty: str
    category: str
    tags: list[str]
    premium: bool
    locked: bool


@dataclass(frozen=True)
class ProblemPage:
    card: ProblemCard
    version: ProblemVersion
    entry_point: str
    sections: list[Section]
    learn_html: str
    learn_truncated: bool
    starter: str | None  # None when the viewer may not work on the problem
    related: list[ProblemCard] = field(default_factory=list)


def can_work_on(problem: Problem, viewer: User | None, now: datetime) -> bool:
    """The premium gate: the one place that decides who may read all of and run a problem."""
    return not problem.premium or is_premium(viewer, now)


def require_access(problem: Problem, viewer: User | None, now: datetime) -> None:
    if not can_work_on(problem, viewer, now):
        raise PremiumRequired()


def card(problem: Problem, viewer: User | None, now: datetime) -> ProblemCard:
    return ProblemCard(
        slug=problem.slug,
        title=problem.title,
        difficulty=problem.difficulty,
        category=problem.category,
        tags=problem.tag_names,
        premium=problem.premium,
        locked=not can_work_on(problem, viewer, now),
    )


def list_problems(session: Session, filters: ProblemFilters, viewer: User | None, now: datetime) -> list[ProblemCard]:
    problems = repository.list_published(
        session, difficulty=filters.difficulty, category=filters.category, tag=filters.tag, text=filters.q
    )
    return [card(p, viewer, now) for p in problems]


def filter_choices(session: Session) -> dict[str, Sequence[str]]:
    return {
        "difficulties": DIFFICULTIES,
        "categories": repository.published_categories(session),
        "tags": repository.published_tags(session),
    }


def get_published(session: Session, slug: str) -> Problem:
    problem = repository.get_by_slug(session, slug)
    if problem is None or not problem.published or problem.current_version_id is None:
        raise NotFound(f"There is no problem called {slug!r}.")
    return problem


def current_version(session: Session, problem: Problem) -> ProblemVersion:
    assert problem.current_version_id is not None
    version = repository.get_version(session, problem.current_version_id)
    if version is None:
        raise NotFound(f"Problem {problem.slug!r} has no published version.")
    return version


def version_files(problem_slug: str, version: ProblemVersion) -> ProblemFiles:
    return build_problem(problem_slug, dict(version.files))


def problem_page(session: Session, slug: str, viewer: User | None, now: datetime) -> ProblemPage:
    problem = get_published(session, slug)
    version = current_version(session, problem)
    files = version_files(problem.slug, version)
    unlocked = can_work_on(problem, viewer, now)
    if unlocked:
        learn_html, truncated = render_markdown(files.learn), False
    else:
        preview, truncated = preview_markdown(files.learn)
        learn_html = render_markdown(preview)
    return ProblemPage(
        card=card(problem, viewer, now),
        version=version,
        entry_point=files.entry_point,
        sections=split_sections(files.statement),
        learn_html=learn_html,
        learn_truncated=truncated,
        starter=files.starter if unlocked else None,
        related=[card(p, viewer, now) for p in repository.related(session, problem)],
    )
