"""The learning paths (HTML): ``/tracks`` lists every track with the viewer's progress, and
``/tracks/<slug>`` is the same view for one track."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Path, Request

from app.accounts.deps import OptionalUser
from app.kit.db import utcnow
from app.kit.web import SessionDep, render
from app.tracks import service

router = APIRouter(tags=["tracks"])


@router.get("/tracks")
def track_list(request: Request, session: SessionDep, user: OptionalUser) -> Any:
    tracks = service.list_tracks(session, user, utcnow())
    return render(request, "tracks/list.html", {"tracks": tracks, "single": False})


@router.get("/tracks/{slug}")
def track_page(
    request: Request, slug: Annotated[str, Path(max_length=60)], session: SessionDep, user: OptionalUser
) -> Any:
    track = service.get_track(session, slug, user, utcnow())
    return render(request, "tracks/list.html", {"tracks": [track], "single": True})
