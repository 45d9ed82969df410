"""``/api/v1/problems/{slug}/hints``: the caller's revealed hints, and revealing the next one."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Path

from app.api_v1.deps import ApiUser, OptionalApiUser, needs
from app.api_v1.schemas import HintsOut, error_responses
from app.hints import service as hints
from app.hints.service import HintsView
from app.kit.db import utcnow
from app.kit.web import SessionDep

router = APIRouter(prefix="/problems", tags=["hints"])

Slug = Annotated[str, Path(max_length=200)]


def _out(view: HintsView) -> HintsOut:
    return HintsOut(revealed=view.revealed, total=view.total, remaining=view.remaining, locked=view.locked)


@router.get(
    "/{slug}/hints",
    response_model=HintsOut,
    responses=error_responses(401, 403, 404, 429),
    dependencies=[needs("read")],
)
def get_hints(slug: Slug, session: SessionDep, user: OptionalApiUser) -> HintsOut:
    """The hints the caller has revealed, and how many exist. Anonymous callers: none revealed."""
    return _out(hints.hints_for(session, slug, user, utcnow()))


@router.post(
    "/{slug}/hints/next",
    response_model=HintsOut,
    responses=error_responses(401, 403, 404, 409, 429),
    dependencies=[needs("submit")],
)
def reveal_next_hint(slug: Slug, session: SessionDep, user: ApiUser) -> HintsOut:
    """Reveal the next hint (remembered for the caller). When all are revealed, nothing changes.

    403 `premium_required` on a Premium problem the caller may not work on; 409 when it has no hints.
    """
    return _out(hints.reveal_next(session, slug, user, utcnow()))
