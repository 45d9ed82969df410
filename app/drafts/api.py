"""JSON endpoints of the editor's draft (session cookie; writes need X-CSRF-Token)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Response
from pydantic import BaseModel, Field

from app.accounts.deps import CurrentUser
from app.drafts import service
from app.kit.db import utcnow
from app.kit.web import CsrfProtected, SessionDep, SettingsDep

router = APIRouter(prefix="/api", tags=["drafts"])


class DraftIn(BaseModel):
    code: str = Field(description="The whole text of the learner's editor")


@router.get("/problems/{slug}/draft")
def get_draft(slug: str, user: CurrentUser, session: SessionDep) -> dict[str, Any]:
    return service.to_view(service.get_draft(session, user, slug, utcnow()), slug)


@router.put("/problems/{slug}/draft", dependencies=[CsrfProtected])
def put_draft(
    slug: str, body: DraftIn, user: CurrentUser, session: SessionDep, settings: SettingsDep
) -> dict[str, Any]:
    draft = service.save_draft(
        session, user, slug, body.code, max_code_bytes=settings.max_code_bytes, now=utcnow()
    )
    return service.to_view(draft, slug)


@router.delete("/problems/{slug}/draft", status_code=204, dependencies=[CsrfProtected])
def delete_draft(slug: str, user: CurrentUser, session: SessionDep) -> Response:
    service.delete_draft(session, user, slug, utcnow())
    return Response(status_code=204)
