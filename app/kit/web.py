"""Request plumbing shared by every domain: typed dependencies, CSRF check, templates."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Annotated, Any

from fastapi import Depends, Query, Request
from fastapi.templating import Jinja2Templates
from sqlalchemy.orm import Session

from app.kit import words
from app.kit.db import Database, run_commit_hooks
from app.kit.db_slots import DatabaseSlots
from app.kit.errors import AppError, CsrfFailed
from app.kit.runner import JudgeRunner
from app.kit.security import CSRF_FORM_FIELD, CSRF_HEADER, csrf_matches, csrf_token
from app.kit.settings import Settings
from app.kit.static_assets import StaticAssets

ROOT = Path(__file__).resolve().parents[2]
templates = Jinja2Templates(directory=str(ROOT / "templates"))
templates.env.globals["csrf_field_name"] = CSRF_FORM_FIELD
# app/static with content-hashed names: templates write {{ static_url("js/app.js") }}.
static_assets = StaticAssets(ROOT / "app" / "static")
templates.env.globals["static_url"] = static_assets.url
templates.env.globals["count"] = words.count  # "1 case", "3 cases" (app/kit/words.py)


def get_database(request: Request) -> Database:
    db: Database = request.app.state.db
    return db


def get_database_slots(request: Request) -> DatabaseSlots:
    slots: DatabaseSlots = request.app.state.db_slots
    return slots


async def database_slot(request: Request) -> AsyncIterator[None]:
    """Hold one of the app's database slots (``app.kit.db_slots``) from here to the route's end.

    Taken on the event loop, before the request's first database work, and given back once the
    session's teardown (commit and on-commit work) is done, before the response is sent.
    """
    async with get_database_slots(request):
        yield


# scope="function", like the session's: given back before the response is sent (an answer produced
# later, e.g. while waiting for a verdict, does not keep it). Every router of the app depends on it
# (app.main), so the database work of dependencies resolved before the session (the bearer token's
# owner) is inside the slot too; once per request (FastAPI caches it).
DatabaseSlot = Depends(database_slot, scope="function")


def get_session(request: Request, _slot: Annotated[None, DatabaseSlot]) -> Iterator[Session]:
    """The request's unit of work: commit when the route returns, roll back if it raises.

    Never without a database slot: its connection, taken at the first query, is held across
    worker-thread hops until the teardown, which is safe only because the slots leave the pool a
    connection for every request that holds one (``app.kit.db``).
    """
    session = get_database(request).sessionmaker()
    try:
        yield session
        session.commit()
    except BaseException:
        session.rollback()
        raise
    finally:
        session.close()
    run_commit_hooks(session)


# Dependencies that do no I/O are ``async def``: FastAPI runs a plain ``def`` one in a worker
# thread, a hop of its own (a few tens of microseconds of CPU, and a wait for a free thread).
async def get_settings_dep(request: Request) -> Settings:
    settings: Settings = request.app.state.settings
    return settings


async def get_runner_dep(request: Request) -> JudgeRunner:
    runner: JudgeRunner = request.app.state.runner
    return runner


# scope="function": the commit (and the jobs it releases) happen before the response is sent,
# so a client polling right after a 202 always finds the row.
SessionDep = Annotated[Session, Depends(get_session, scope="function")]
SettingsDep = Annotated[Settings, Depends(get_settings_dep)]
# A keyset-paged list's query parameters (app/kit/paging.py), the same on every list.
PageLimit = Annotated[int | None, Query(ge=1, le=100, description="Page size (default 50)")]
PageAfter = Annotated[
    str | None, Query(max_length=1000, description="The cursor of the next page (from `next`)")
]
RunnerDep = Annotated[JudgeRunner, Depends(get_runner_dep)]


async def require_csrf(request: Request) -> None:
    """Refuse a state-changing request whose token (header or form field) is not the session's."""
    submitted = request.headers.get(CSRF_HEADER)
    if not submitted:
        content_type = request.headers.get("content-type", "")
        if content_type.startswith(("application/x-www-form-urlencoded", "multipart/form-data")):
            form = await request.form()
            value = form.get(CSRF_FORM_FIELD)
            submitted = value if isinstance(value, str) else None
    if not csrf_matches(request.session, submitted):
        raise CsrfFailed()


CsrfProtected = Depends(require_csrf)


# What an action on a post taken from another route (app.moderation's report form) says back: the
# post's own page (a solution's, a thread's) shows it once, beside that page's own notices.
POST_NOTICE_KEY = "post_notice"


def pop_notice(request: Request, key: str) -> str | None:
    """The page's one-time notice under ``key``, or the post notice; both are taken from the session."""
    own, post = request.session.pop(key, None), request.session.pop(POST_NOTICE_KEY, None)
    value = own or post
    return value if isinstance(value, str) else None


def render(
    request: Request,
    template: str,
    context: dict[str, Any] | None = None,
    status_code: int = 200,
    *,
    refusal: AppError | None = None,
) -> Any:
    """Render a page with the context every page needs (user, CSRF token, runtime).

    ``refusal``: the page is a form shown again because of it (:func:`shown_on_form`), so the page
    answers the refusal's status (422, 409, 429) and headers (``Retry-After``) instead of 200."""
    ctx: dict[str, Any] = {"csrf_token": csrf_token(request.session), "current_user": None}
    ctx.update(getattr(request.state, "page_context", {}))
    ctx.update(context or {})
    if refusal is None:
        return templates.TemplateResponse(request, template, ctx, status_code=status_code)
    return templates.TemplateResponse(
        request, template, ctx, status_code=refusal.status_code, headers=refusal.headers
    )


def shown_on_form(exc: AppError) -> bool:
    """Whether a form shows ``exc`` beside the text the writer typed, so nothing typed is lost: a
    mistake (422), a conflict (409), the rate limit (429). Not logged in, not allowed or not found
    (401, 403, 404) keep their own pages: typing again would not mend them."""
    return exc.status_code not in (401, 403, 404)


def parse_int(value: str, field: str, errors: dict[str, str]) -> int:
    """A whole number from a form field; records a message under ``field`` in ``errors`` if not."""
    try:
        return int(value.strip())
    except ValueError:
        errors[field] = "Enter a whole number."
        return 0
