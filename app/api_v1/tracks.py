"""``/api/v1/tracks``: the learning paths in order, each with its problems and the caller's progress."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Path

from app.api_v1.deps import OptionalApiUser, needs
from app.api_v1.schemas import TrackItem, TrackList, TrackOut, TrackProblem, TrackProgress, error_responses
from app.kit.db import utcnow
from app.kit.web import SessionDep
from app.tracks import service as tracks
from app.tracks.service import TrackView

router = APIRouter(prefix="/tracks", tags=["tracks"], dependencies=[needs("read")])


def _item(track: TrackView, with_progress: bool) -> TrackItem:
    following = track.next_problem
    progress = (
        TrackProgress(
            solved=track.solved,
            attempted=track.attempted,
            total=track.total,
            next_problem=following.slug if following is not None else None,
        )
        if with_progress
        else None
    )
    return TrackItem(
        slug=track.slug,
        title=track.title,
        description=track.description,
        position=track.position,
        problem_count=track.total,
        progress=progress,
    )


@router.get("", response_model=TrackList, responses=error_responses(401, 403, 429))
def list_tracks(session: SessionDep, user: OptionalApiUser) -> TrackList:
    """Every track in order with its problem count; `progress` when called with a token."""
    views = tracks.list_tracks(session, user, utcnow())
    return TrackList(items=[_item(t, user is not None) for t in views])


@router.get("/{slug}", response_model=TrackOut, responses=error_responses(401, 403, 404, 429))
def get_track(
    slug: Annotated[str, Path(max_length=60)], session: SessionDep, user: OptionalApiUser
) -> TrackOut:
    """One track: its problems in order, each with the caller's mark (`solved` / `attempted`)."""
    view = tracks.get_track(session, slug, user, utcnow())
    problems = [
        TrackProblem(
            slug=c.slug,
            title=c.title,
            difficulty=c.difficulty,  # type: ignore[arg-type]  # the CHECK constraint; pydantic re-checks
            premium=c.premium,
            locked=c.locked,
            mark=c.mark,  # type: ignore[arg-type]
        )
        for c in view.problems
    ]
    return TrackOut(**dict(_item(view, user is not None)), problems=problems)
