"""Problems as learners see them: listing, filtering, the problem page and the premium gate."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy.orm import Session, object_session

from app.accounts.models import User
from app.accounts.premium import is_premium
from app.kit.db import utcnow
from app.kit.errors import InvalidInput, NotFound, PremiumRequired
from app.kit.markdown import Section, preview_markdown, render_markdown, split_first_section, split_sections
from app.kit.paging import decode_cursor, page_of
from app.kit.runner import display_value
from app.problems import repository, visibility
from app.problems.models import Problem, ProblemVersion
from runner.jobs import Limits
from runner.format.problem import DIFFICULTIES, ProblemFiles, build_problem
from runner.format.rules import RulesError, parse_rules

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
                raise InvalidInput(
                    f"Unknown difficulty {difficulty!r}: use one of {', '.join(DIFFICULTIES)}."
                )
        if any("\x00" in (v or "") for v in (category, tag, q)):
            raise InvalidInput("Filters cannot contain NUL characters.")
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
    mark: str | None = None  # "solved" / "attempted" for the viewer, None if untouched or anonymous
    accepted: int = 0  # accepted submits (all learners)
    judged: int = 0  # finished submits (all learners)

    @property
    def acceptance_rate(self) -> float | None:
        return self.accepted / self.judged if self.judged else None


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
    limits: Limits | None = None
    learn_solution_html: str = ""  # the lesson's solution-level sections (folded before an attempt)


# Other grounds for working on a Premium problem, registered by domains above this one (a course
# assignment: app.courses.access). Each gets the problem's session, so the gate keeps its signature.
AccessRule = Callable[[Session, Problem, User, datetime], bool]
_access_rules: dict[str, AccessRule] = {}


def register_access_rule(name: str, rule: AccessRule) -> None:
    _access_rules[name] = rule


def can_work_on(problem: Problem, viewer: User | None, now: datetime) -> bool:
    """The premium gate: the one place that decides who may read all of and run a problem."""
    if not problem.premium or is_premium(viewer, now):
        return True
    session = object_session(problem)
    if viewer is None or session is None:
        return False
    return any(rule(session, problem, viewer, now) for rule in _access_rules.values())


def require_access(problem: Problem, viewer: User | None, now: datetime) -> None:
    if not can_work_on(problem, viewer, now):
        raise PremiumRequired()


@dataclass(frozen=True)
class Outcomes:
    """What cards show besides the problem itself: acceptance counts and the viewer's marks."""

    counts: dict[int, tuple[int, int]] = field(default_factory=dict)
    solved: dict[int, bool] = field(default_factory=dict)

    def mark(self, problem_id: int) -> str | None:
        if problem_id not in self.solved:
            return None
        return "solved" if self.solved[problem_id] else "attempted"


def outcomes(session: Session, problems: Sequence[Problem], viewer: User | None) -> Outcomes:
    return Outcomes(
        counts=repository.acceptance_counts(session, [p.id for p in problems]),
        solved=repository.solved_and_attempted(session, viewer.id) if viewer is not None else {},
    )


def card(problem: Problem, viewer: User | None, now: datetime, seen: Outcomes | None = None) -> ProblemCard:
    accepted, judged = seen.counts.get(problem.id, (0, 0)) if seen is not None else (0, 0)
    return ProblemCard(
        slug=problem.slug,
        title=problem.title,
        difficulty=problem.difficulty,
        category=problem.category,
        tags=problem.tag_names,
        premium=problem.premium,
        locked=not can_work_on(problem, viewer, now),
        mark=seen.mark(problem.id) if seen is not None else None,
        accepted=accepted,
        judged=judged,
    )


STATUS_FILTERS = ("solved", "attempted", "todo")


def list_problems(
    session: Session, filters: ProblemFilters, viewer: User | None, now: datetime, status: str | None = None
) -> list[ProblemCard]:
    """Cards matching the filters; ``status`` (solved / attempted / todo) narrows by the viewer's marks."""
    problems = repository.list_published(
        session, difficulty=filters.difficulty, category=filters.category, tag=filters.tag, text=filters.q
    )
    seen = outcomes(session, problems, viewer)
    cards = [card(p, viewer, now, seen) for p in problems]
    if status in STATUS_FILTERS and viewer is not None:
        cards = [c for c in cards if (c.mark or "todo") == status]
    return cards


def page_of_problems(
    session: Session,
    filters: ProblemFilters,
    viewer: User | None,
    now: datetime,
    after: str | None,
    limit: int,
) -> tuple[list[ProblemCard], str | None]:
    """One page of cards after the cursor ``after``, and the cursor of the next page (None: the last)."""
    key = decode_cursor(after, LIST_KEY) if after else None
    rows = repository.list_published(
        session,
        difficulty=filters.difficulty,
        category=filters.category,
        tag=filters.tag,
        text=filters.q,
        after=key,
        limit=limit + 1,
    )
    ranks = repository.track_ranks(session)
    page = page_of(rows, limit, lambda p: repository.list_key(p, ranks))
    seen = outcomes(session, page.items, viewer)
    return [card(p, viewer, now, seen) for p in page.items], page.cursor


LIST_KEY = (int, int, int, str, int, str, int)  # the shape of repository.ListKey, for decoding a cursor


def filter_choices(session: Session) -> dict[str, Sequence[str]]:
    return {
        "difficulties": DIFFICULTIES,
        "categories": repository.published_categories(session),
        "tags": repository.published_tags(session),
    }


def get_published(
    session: Session, slug: str, viewer: User | None, now: datetime | None = None, *, tags: bool = True
) -> Problem:
    """A published problem by slug that ``viewer`` may see (``visibility.can_see``); NotFound otherwise,
    the same for a course-only problem outside its course as for a slug that does not exist.
    ``tags=False``: its tags only if used."""
    if len(slug) > 80 or "\x00" in slug:  # never a slug; PostgreSQL refuses NUL in text
        raise NotFound(f"There is no problem called {slug[:80]!r}.")
    problem = repository.get_by_slug(session, slug, tags=tags)
    if (
        problem is None
        or not problem.published
        or problem.current_version_id is None
        or not visibility.can_see(session, problem, viewer, now or utcnow())
    ):
        raise NotFound(f"There is no problem called {slug!r}.")
    return problem


def get_for_course(session: Session, slug: str, course_id: int) -> Problem:
    """A published problem that course ``course_id`` may use: site-wide, or course-only in that course
    (never another course's). NotFound otherwise, as for an unknown slug."""
    if len(slug) > 80 or "\x00" in slug:
        raise NotFound(f"There is no problem called {slug[:80]!r}.")
    problem = repository.get_by_slug(session, slug)
    if (
        problem is None
        or not problem.published
        or problem.current_version_id is None
        or not visibility.belongs_in(problem, course_id)
    ):
        raise NotFound(f"There is no problem called {slug!r}.")
    return problem


def usable_in_course(session: Session, course_id: int, text: str = "", limit: int = 20) -> list[Problem]:
    """What course ``course_id``'s assignments may hold (the rule of :func:`get_for_course`), matching
    ``text``: the problem picker's choices."""
    found = repository.usable_in_course(session, course_id, text.strip()[:MAX_SEARCH] or None, limit)
    return [p for p in found if visibility.belongs_in(p, course_id)]


def problems_by_ids(session: Session, ids: set[int]) -> list[Problem]:
    return list(repository.problems_with_ids(session, ids))


def current_version(session: Session, problem: Problem) -> ProblemVersion:
    assert problem.current_version_id is not None
    version = repository.get_version(session, problem.current_version_id)
    if version is None:
        raise NotFound(f"Problem {problem.slug!r} has no published version.")
    return version


def version_files(problem_slug: str, version: ProblemVersion) -> ProblemFiles:
    return build_problem(problem_slug, dict(version.files))


def problem_page(session: Session, slug: str, viewer: User | None, now: datetime) -> ProblemPage:
    problem = get_published(session, slug, viewer, now)
    version = current_version(session, problem)
    files = version_files(problem.slug, version)
    unlocked = can_work_on(problem, viewer, now)
    solution_html = ""
    if unlocked:
        background, approach = split_first_section(files.learn)
        learn_html, truncated = render_markdown(background), False
        solution_html = render_markdown(approach) if approach.strip() else ""
    else:
        preview, truncated = preview_markdown(files.learn)
        learn_html = render_markdown(preview)
    related = repository.related(session, problem)
    seen = outcomes(session, [problem, *related], viewer)
    return ProblemPage(
        card=card(problem, viewer, now, seen),
        version=version,
        entry_point=files.entry_point,
        sections=split_sections(files.statement),
        learn_html=learn_html,
        learn_truncated=truncated,
        starter=files.starter if unlocked else None,
        related=[card(p, viewer, now, seen) for p in related],
        limits=files.limits,
        learn_solution_html=solution_html,
    )


def reference_solution(
    problem: Problem, version: ProblemVersion, viewer: User | None, now: datetime, solved: bool
) -> str | None:
    """The reference solution: only for premium members who may work on it and have solved it."""
    if not solved or not is_premium(viewer, now) or not can_work_on(problem, viewer, now):
        return None
    return version_files(problem.slug, version).solution


@dataclass(frozen=True)
class ProblemDetail:
    """A problem as the REST API sends it: Markdown sources, locked parts already removed."""

    problem: Problem
    card: ProblemCard
    version: ProblemVersion
    entry_point: str
    statement: str
    learn: str  # only the preview when locked
    learn_truncated: bool
    starter: str | None  # None when locked
    examples: list[dict[str, Any]]
    related: list[ProblemCard]
    rules: list[dict[str, str]]  # the statement's rules (its "## Rules" section): id and sentence


def problem_detail(session: Session, slug: str, viewer: User | None, now: datetime) -> ProblemDetail:
    problem = get_published(session, slug, viewer, now)
    version = current_version(session, problem)
    files = version_files(problem.slug, version)
    unlocked = can_work_on(problem, viewer, now)
    learn, truncated = (files.learn, False) if unlocked else preview_markdown(files.learn)
    cases = version.expectations.get("cases", []) if isinstance(version.expectations, dict) else []
    examples = [
        {"name": c.get("name", ""), "expected": display_value(c.get("value"))}
        for c in cases
        if c.get("public")
    ]
    return ProblemDetail(
        problem=problem,
        card=card(problem, viewer, now),
        version=version,
        entry_point=files.entry_point,
        statement=files.statement,
        learn=learn,
        learn_truncated=truncated,
        starter=files.starter if unlocked else None,
        examples=examples,
        related=[card(p, viewer, now) for p in repository.related(session, problem)],
        rules=statement_rules(files.statement),
    )


def statement_rules(statement: str) -> list[dict[str, str]]:
    """The rules a statement states, as the API returns them; [] when it states none (validation
    refuses a malformed Rules section before a problem is published)."""
    try:
        return [{"id": r.id, "sentence": r.sentence} for r in parse_rules(statement)]
    except RulesError:
        return []
