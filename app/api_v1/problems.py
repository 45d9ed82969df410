"""``/api/v1/problems``: the problem list and one problem, with the premium gate applied."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Path, Query

from app.api_v1.deps import OptionalApiUser, needs
from app.api_v1.schemas import (
    Difficulty,
    Example,
    ProblemItem,
    ProblemList,
    ProblemOut,
    ProblemRule,
    ProblemTrack,
    RelatedProblem,
    error_responses,
)
from app.hints import service as hints
from app.kit.db import utcnow
from app.kit.paging import next_url
from app.kit.runner import runtime_info
from app.kit.web import PageAfter, PageLimit, RunnerDep, SessionDep, SettingsDep
from app.problems import service as problems
from app.submissions import service as submissions
from app.tracks import service as tracks
from app.tracks.service import Neighbours

router = APIRouter(prefix="/problems", tags=["problems"], dependencies=[needs("read")])

Filter = Annotated[str | None, Query(max_length=100, pattern=r"^[^\x00]*$")]


@router.get("", response_model=ProblemList, responses=error_responses(401, 403, 422, 429))
def list_problems(
    session: SessionDep,
    user: OptionalApiUser,
    settings: SettingsDep,
    difficulty: Annotated[Difficulty | None, Query()] = None,
    category: Filter = None,
    tag: Filter = None,
    q: Filter = None,
    limit: PageLimit = None,
    after: PageAfter = None,
) -> ProblemList:
    """Published problems, filtered by difficulty, category, tag or text (`q`). Anonymous callers may list.

    `locked` is true for premium problems the caller may not work on; `solved` needs a token.
    """
    size = min(limit or settings.api_page_size, 100)
    filters = problems.ProblemFilters.parse(difficulty, category, tag, q)
    page, cursor = problems.page_of_problems(session, filters, user, utcnow(), after, size)
    params = {"difficulty": difficulty, "category": category, "tag": tag, "q": q, "limit": size}
    items = [
        ProblemItem(
            slug=c.slug,
            title=c.title,
            difficulty=c.difficulty,  # type: ignore[arg-type]  # the CHECK constraint; pydantic re-checks
            category=c.category,
            tags=c.tags,
            premium=c.premium,
            locked=c.locked,
            solved=c.mark == "solved",
        )
        for c in page
    ]
    return ProblemList(items=items, next=next_url("/api/v1/problems", params, cursor))


@router.get("/{slug}", response_model=ProblemOut, responses=error_responses(401, 403, 404, 429))
def get_problem(
    slug: Annotated[str, Path(max_length=200)],
    session: SessionDep,
    user: OptionalApiUser,
    runner: RunnerDep,
) -> ProblemOut:
    """One problem. When `locked`: `learn` is a preview, `starter_code` is null, the rest is not sent."""
    now = utcnow()
    detail = problems.problem_detail(session, slug, user, now)
    solved = submissions.has_accepted(session, user, detail.problem)
    card = detail.card
    return ProblemOut(
        slug=card.slug,
        title=card.title,
        difficulty=card.difficulty,  # type: ignore[arg-type]
        category=card.category,
        tags=card.tags,
        premium=card.premium,
        locked=card.locked,
        solved=solved,
        statement=detail.statement,
        learn=detail.learn,
        learn_truncated=detail.learn_truncated,
        starter_code=detail.starter,
        reference_solution=problems.reference_solution(detail.problem, detail.version, user, now, solved),
        entry_point=detail.entry_point,
        examples=[Example(**e) for e in detail.examples],
        rules=[ProblemRule(**r) for r in detail.rules],
        runtime=runtime_info(runner),
        related=[
            RelatedProblem(
                slug=r.slug,
                title=r.title,
                difficulty=r.difficulty,  # type: ignore[arg-type]
                premium=r.premium,
                locked=r.locked,
            )
            for r in detail.related
        ],
        track=_track(tracks.neighbours(session, detail.problem, user, now)),
        hint_count=hints.hints_for(session, slug, user, now).total,
    )


def _track(place: Neighbours | None) -> ProblemTrack | None:
    if place is None:
        return None
    return ProblemTrack(
        slug=place.track_slug,
        title=place.track_title,
        position=place.position,
        total=place.total,
        previous=place.previous.slug if place.previous is not None else None,
        next=place.next.slug if place.next is not None else None,
    )
