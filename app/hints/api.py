"""JSON endpoints of the problem page's hints (session cookie; revealing needs X-CSRF-Token).

The same service as ``/api/v1/problems/{slug}/hints``; this pair serves the page's script.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from app.accounts.deps import CurrentUser, OptionalUser
from app.hints import service
from app.kit.db import utcnow
from app.kit.markdown import render_markdown
from app.kit.web import CsrfProtected, SessionDep

router = APIRouter(prefix="/api", tags=["hints"])


def _view(view: service.HintsView) -> dict[str, Any]:
    return {
        "revealed": view.revealed,
        "revealed_html": [render_markdown(h) for h in view.revealed],  # sanitised, as the statement
        "total": view.total,
        "remaining": view.remaining,
        "locked": view.locked,
    }


@router.get("/problems/{slug}/hints")
def get_hints(slug: str, user: OptionalUser, session: SessionDep) -> dict[str, Any]:
    return _view(service.hints_for(session, slug, user, utcnow()))


@router.post("/problems/{slug}/hints/next", dependencies=[CsrfProtected])
def reveal_next(slug: str, user: CurrentUser, session: SessionDep) -> dict[str, Any]:
    return _view(service.reveal_next(session, slug, user, utcnow()))
