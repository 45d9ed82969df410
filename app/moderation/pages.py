"""Moderation pages: the report form's target (from any post) and the queue at ``/moderation``."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Form, Path, Query, Request
from fastapi.responses import RedirectResponse

from app.accounts.deps import CurrentUser
from app.kit.db import utcnow
from app.kit.errors import AppError
from app.kit.web import POST_NOTICE_KEY, CsrfProtected, SessionDep, render
from app.moderation import registry, service
from app.moderation.deps import ReportLimiter

router = APIRouter(tags=["moderation pages"])

NOTICE_KEY = "moderation_notice"  # the queue's; the report form's goes to the post's page (POST_NOTICE_KEY)


def _notice(request: Request) -> str | None:
    value = request.session.pop(NOTICE_KEY, None)
    return value if isinstance(value, str) else None


def _back(request: Request, url: str, text: str, key: str = NOTICE_KEY) -> RedirectResponse:
    request.session[key] = text
    return RedirectResponse(url, status_code=303)


def _same_site(url: str) -> str:
    """Where to return: a path on this site only (never ``//host``)."""
    return url if url.startswith("/") and not url.startswith(("//", "/\\")) else "/"


@router.post("/moderation/report", dependencies=[CsrfProtected])
def report(
    request: Request,
    session: SessionDep,
    user: CurrentUser,
    limiter: ReportLimiter,
    kind: Annotated[str, Form(max_length=20)],
    id: Annotated[str, Form(max_length=12)],
    reason: Annotated[str, Form(max_length=service.MAX_REASON * 2)] = "",
) -> Any:
    target_id = int(id) if id.isdigit() and 0 < int(id) < 2**31 else 0
    info = None
    target = registry.target_for(kind)
    if target is not None and target_id:
        info = target.describe(session, kind, target_id)
    back = _same_site(info.url if info is not None else "/")
    try:
        service.report(session, user, kind, target_id, reason, utcnow(), limiter)
    except AppError as exc:
        if exc.status_code in (401, 403, 404):
            raise
        return _back(request, back, f"Not reported: {exc.detail}", POST_NOTICE_KEY)
    return _back(request, back, "Thanks: a moderator will look at this post.", POST_NOTICE_KEY)


@router.get("/moderation")
def queue_page(
    request: Request,
    session: SessionDep,
    user: CurrentUser,
    status: Annotated[str, Query(pattern="^(open|hidden|dismissed)$")] = "open",
    after: Annotated[str | None, Query(max_length=1000)] = None,
) -> Any:
    queue = service.queue(session, user, status=status, after=after, base="/moderation")
    return render(
        request, "moderation/queue.html", {"queue": queue, "status": status, "notice": _notice(request)}
    )


@router.post("/moderation/reports/{report_id}/action", dependencies=[CsrfProtected])
def act(
    request: Request,
    report_id: Annotated[int, Path(ge=1, le=2**31 - 1)],
    session: SessionDep,
    user: CurrentUser,
    action: Annotated[str, Form(max_length=10)],
    status: Annotated[str, Form(pattern="^(open|hidden|dismissed)$")] = "open",
) -> Any:
    view = service.act(session, user, report_id, action, utcnow())
    words = {"hide": "hidden", "unhide": "shown again", "dismiss": "left as it is (report dismissed)"}[action]
    return _back(request, f"/moderation?status={status}", f"Report #{view.id}: the post is {words}.")
