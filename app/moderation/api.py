"""``/api/v1/moderation``: report a post; the queue and its actions for instructors and admins."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Path, Query
from pydantic import BaseModel, ConfigDict, Field

from app.kit.db import utcnow
from app.kit.web import SessionDep
from app.moderation import service
from app.moderation.deps import Moderator, ModeratorReader, Reporter, ReportLimiter
from app.moderation.service import ModerationQueue, ModerationReportView

router = APIRouter(prefix="/api/v1/moderation", tags=["moderation"])

ERRORS: dict[int | str, dict[str, Any]] = {
    401: {"description": "Not logged in / no valid token"},
    403: {"description": "`insufficient_scope`, `premium_required`, or not a moderator"},
    404: {"description": "No such post or report, or not one you may read or moderate"},
    409: {"description": "You already reported this post"},
    422: {"description": "Invalid fields (`invalid_input`)"},
    429: {"description": "Reporting too fast; see the Retry-After header"},
}


class ReportIn(BaseModel):
    model_config = ConfigDict(
        json_schema_extra={"examples": [{"kind": "reply", "id": 12, "reason": "It pastes the full answer."}]}
    )
    kind: str = Field(max_length=20, description="thread, reply (and the solutions' kinds)")
    id: int = Field(ge=1, le=2**31 - 1)
    reason: str = Field(
        max_length=service.MAX_REASON * 2, description=f"At most {service.MAX_REASON} characters"
    )


class ReportFiled(BaseModel):
    id: int
    status: str


class ActionIn(BaseModel):
    model_config = ConfigDict(json_schema_extra={"examples": [{"action": "hide"}]})
    action: Literal["hide", "unhide", "dismiss"]


@router.post("/reports", status_code=201, response_model=ReportFiled, responses=ERRORS)
def report_post(body: ReportIn, user: Reporter, session: SessionDep, limiter: ReportLimiter) -> ReportFiled:
    """Report a post you can read (once per post; rate-limited)."""
    row = service.report(session, user, body.kind, body.id, body.reason, utcnow(), limiter)
    return ReportFiled(id=row.id, status=row.status)


@router.get("/reports", response_model=ModerationQueue, responses=ERRORS)
def queue(
    user: ModeratorReader,
    session: SessionDep,
    status: Annotated[Literal["open", "hidden", "dismissed"], Query()] = "open",
    after: Annotated[str | None, Query(max_length=1000)] = None,
    limit: Annotated[int, Query(ge=1, le=100)] = service.PAGE_SIZE,
) -> ModerationQueue:
    """The reports you moderate (admins: all; instructors: their courses' problems), newest first."""
    return service.queue(session, user, status=status, after=after, limit=limit)


@router.post("/reports/{report_id}/action", response_model=ModerationReportView, responses=ERRORS)
def act(
    report_id: Annotated[int, Path(ge=1, le=2**31 - 1)], body: ActionIn, user: Moderator, session: SessionDep
) -> ModerationReportView:
    """Hide the post (answers every open report on it), unhide it, or dismiss the report."""
    return service.act(session, user, report_id, body.action, utcnow())
