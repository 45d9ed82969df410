"""The discussion's pages: a problem's threads with the form for a new one, a thread with its
replies, edit forms, edit history. Plain forms with the session's CSRF token over the same services
as the API; a refused form comes back with the writer's text kept and the reason shown.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Form, Path, Query, Request
from fastapi.responses import RedirectResponse

from app.accounts.deps import CurrentUser, OptionalUser
from app.discussion import access, posting, reading, service
from app.discussion.deps import PostLimiter
from app.discussion.models import REPLY, THREAD
from app.kit.db import utcnow
from app.kit.errors import AppError, Forbidden
from app.kit.web import CsrfProtected, SessionDep, pop_notice, render, shown_on_form

router = APIRouter(tags=["discussion pages"])

Id = Annotated[int, Path(ge=1, le=2**31 - 1)]
Slug = Annotated[str, Path(max_length=80)]
Body = Annotated[str, Form(max_length=posting.MAX_BODY * 2)]
NOTICE_KEY = "discussion_notice"


def _back(request: Request, url: str, text: str | None = None) -> RedirectResponse:
    if text:
        request.session[NOTICE_KEY] = text
    return RedirectResponse(url, status_code=303)


def _notice(request: Request) -> str | None:
    return pop_notice(request, NOTICE_KEY)


def _list_page(
    request: Request,
    session: SessionDep,
    user: OptionalUser,
    slug: str,
    sort: str,
    after: str | None,
    form: dict[str, str] | None = None,
    refusal: AppError | None = None,
) -> Any:
    now = utcnow()
    threads = service.list_threads(
        session, slug, user, now, sort=sort, after=after, base=f"/problems/{slug}/discussion"
    )
    problem = access.problem_by_slug(session, slug, user, now)
    return render(
        request,
        "discussion/list.html",
        {
            "problem": problem,
            "threads": threads,
            "sort": sort,
            "form": form or {"title": "", "body": ""},
            "error": refusal.detail if refusal else None,
            "notice": _notice(request),
            "max_title": posting.MAX_TITLE,
            "max_body": posting.MAX_BODY,
        },
        refusal=refusal,
    )


@router.get("/problems/{slug}/discussion")
def problem_discussion(
    request: Request,
    slug: Slug,
    session: SessionDep,
    user: OptionalUser,
    sort: Annotated[str, Query(pattern="^(newest|votes)$")] = "newest",
    after: Annotated[str | None, Query(max_length=1000)] = None,
) -> Any:
    return _list_page(request, session, user, slug, sort, after)


@router.post("/problems/{slug}/discussion", dependencies=[CsrfProtected])
def new_thread(
    request: Request,
    slug: Slug,
    session: SessionDep,
    user: CurrentUser,
    limiter: PostLimiter,
    title: Annotated[str, Form(max_length=posting.MAX_TITLE * 2)] = "",
    body: Body = "",
) -> Any:
    try:
        thread = posting.create_thread(session, user, slug, title, body, utcnow(), limiter)
    except AppError as exc:
        if not shown_on_form(exc):
            raise
        return _list_page(request, session, user, slug, "newest", None, {"title": title, "body": body}, exc)
    return _back(request, service.thread_page_url(thread.id))


def _thread_page(
    request: Request,
    session: SessionDep,
    user: OptionalUser,
    thread_id: int,
    reply: str = "",
    refusal: AppError | None = None,
    after: str | None = None,
) -> Any:
    loaded = service.load_thread(session, thread_id, user, utcnow())
    page = reading.thread_page(
        session, loaded, user, after=after, base=service.thread_page_url(thread_id), placeholders=True
    )
    return render(
        request,
        "discussion/thread.html",
        {
            "problem": loaded.problem,
            "thread": page.view,
            "entries": page.entries,
            "paged": after is not None,
            "reply": reply,
            "error": refusal.detail if refusal else None,
            "notice": _notice(request),
            "max_body": posting.MAX_REPLY,
        },
        refusal=refusal,
    )


@router.get("/discussion/threads/{thread_id}")
def thread_page(
    request: Request,
    thread_id: Id,
    session: SessionDep,
    user: OptionalUser,
    after: Annotated[str | None, Query(max_length=1000)] = None,
) -> Any:
    return _thread_page(request, session, user, thread_id, after=after)


@router.post("/discussion/threads/{thread_id}/replies", dependencies=[CsrfProtected])
def new_reply(
    request: Request,
    thread_id: Id,
    session: SessionDep,
    user: CurrentUser,
    limiter: PostLimiter,
    body: Body = "",
) -> Any:
    try:
        reply = posting.create_reply(session, user, thread_id, body, utcnow(), limiter)
    except AppError as exc:
        if not shown_on_form(exc):
            raise
        return _thread_page(request, session, user, thread_id, body, exc)
    return _back(request, reading.reply_url(session, thread_id, reply.id))


def _edit_page(
    request: Request,
    kind: str,
    post_id: int,
    thread_id: int,
    title: str | None,
    body: str,
    refusal: AppError | None = None,
) -> Any:
    return render(
        request,
        "discussion/edit.html",
        {
            "kind": kind,
            "post_id": post_id,
            "thread_id": thread_id,
            "title": title,
            "body": body,
            "error": refusal.detail if refusal else None,
            "max_title": posting.MAX_TITLE,
            "max_body": posting.MAX_BODY,
        },
        refusal=refusal,
    )


@router.get("/discussion/threads/{thread_id}/edit")
def edit_thread_form(request: Request, thread_id: Id, session: SessionDep, user: CurrentUser) -> Any:
    thread = service.load_question(session, thread_id, user, utcnow()).thread
    if thread.author_id != user.id:
        raise Forbidden("Only the author of this thread may change it.")
    return _edit_page(request, THREAD, thread.id, thread.id, thread.title, thread.body)


@router.post("/discussion/threads/{thread_id}/edit", dependencies=[CsrfProtected])
def edit_thread(
    request: Request,
    thread_id: Id,
    session: SessionDep,
    user: CurrentUser,
    limiter: PostLimiter,
    title: Annotated[str, Form(max_length=posting.MAX_TITLE * 2)] = "",
    body: Body = "",
) -> Any:
    try:
        posting.edit_thread(session, user, thread_id, title, body, utcnow(), limiter)
    except AppError as exc:
        if not shown_on_form(exc):
            raise
        return _edit_page(request, THREAD, thread_id, thread_id, title, body, exc)
    return _back(request, service.thread_page_url(thread_id), "Saved; the previous text is in the history.")


@router.get("/discussion/replies/{reply_id}/edit")
def edit_reply_form(request: Request, reply_id: Id, session: SessionDep, user: CurrentUser) -> Any:
    reply, _loaded = service.load_reply(session, reply_id, user, utcnow())
    if reply.author_id != user.id:
        raise Forbidden("Only the author of this reply may change it.")
    return _edit_page(request, REPLY, reply.id, reply.thread_id, None, reply.body)


@router.post("/discussion/replies/{reply_id}/edit", dependencies=[CsrfProtected])
def edit_reply(
    request: Request,
    reply_id: Id,
    session: SessionDep,
    user: CurrentUser,
    limiter: PostLimiter,
    body: Body = "",
) -> Any:
    reply, _loaded = service.load_reply(session, reply_id, user, utcnow())
    try:
        posting.edit_reply(session, user, reply_id, body, utcnow(), limiter)
    except AppError as exc:
        if not shown_on_form(exc):
            raise
        return _edit_page(request, REPLY, reply_id, reply.thread_id, None, body, exc)
    return _back(request, reading.reply_url(session, reply.thread_id, reply_id), "Reply saved.")


@router.post("/discussion/threads/{thread_id}/delete", dependencies=[CsrfProtected])
def delete_thread(request: Request, thread_id: Id, session: SessionDep, user: CurrentUser) -> Any:
    loaded = service.load_question(session, thread_id, user, utcnow())
    thread = posting.delete_thread(session, user, thread_id, utcnow())
    if thread.reply_count > 0 and thread.hidden_at is None:
        return _back(
            request,
            service.thread_page_url(thread_id),
            "Your question was deleted; its replies stay, under “[deleted]”.",
        )
    return _back(request, f"/problems/{loaded.problem.slug}/discussion", "Your thread was deleted.")


@router.post("/discussion/replies/{reply_id}/delete", dependencies=[CsrfProtected])
def delete_reply(request: Request, reply_id: Id, session: SessionDep, user: CurrentUser) -> Any:
    _reply, loaded = service.load_reply(session, reply_id, user, utcnow())
    reply = posting.delete_reply(session, user, reply_id, utcnow())
    if loaded.thread.deleted_at is not None and loaded.thread.reply_count == 0:
        # Its last reply gone, a "[deleted]" question leaves with it.
        return _back(request, f"/problems/{loaded.problem.slug}/discussion", "Your reply was deleted.")
    return _back(request, reading.reply_url(session, reply.thread_id, reply_id), "Your reply was deleted.")


def _vote(request: Request, session: SessionDep, user: CurrentUser, kind: str, post_id: int, up: str) -> Any:
    now = utcnow()
    posting.vote(session, user, kind, post_id, up == "1", now)
    if kind == THREAD:
        return _back(request, service.thread_page_url(post_id))
    reply, _ = service.load_reply(session, post_id, user, now)
    return _back(request, reading.reply_url(session, reply.thread_id, post_id))


@router.post("/discussion/threads/{thread_id}/vote", dependencies=[CsrfProtected])
def vote_thread(
    request: Request,
    thread_id: Id,
    session: SessionDep,
    user: CurrentUser,
    up: Annotated[str, Form(max_length=1)] = "1",
) -> Any:
    return _vote(request, session, user, THREAD, thread_id, up)


@router.post("/discussion/replies/{reply_id}/vote", dependencies=[CsrfProtected])
def vote_reply(
    request: Request,
    reply_id: Id,
    session: SessionDep,
    user: CurrentUser,
    up: Annotated[str, Form(max_length=1)] = "1",
) -> Any:
    return _vote(request, session, user, REPLY, reply_id, up)


@router.post("/discussion/threads/{thread_id}/marks", dependencies=[CsrfProtected])
def mark(
    request: Request,
    thread_id: Id,
    session: SessionDep,
    user: CurrentUser,
    answer: Annotated[str | None, Form(max_length=12)] = None,
    pinned: Annotated[str | None, Form(max_length=12)] = None,
) -> Any:
    def value(raw: str | None) -> int | bool | None:
        if raw is None:
            return False
        return int(raw) if raw.isdigit() and 0 < int(raw) < 2**31 else None

    posting.mark(session, user, thread_id, answer=value(answer), pinned=value(pinned), now=utcnow())
    return _back(request, service.thread_page_url(thread_id))


def _history(request: Request, session: SessionDep, user: OptionalUser, kind: str, post_id: int) -> Any:
    now = utcnow()
    view = service.history(session, kind, post_id, user, now)
    thread_id = post_id if kind == THREAD else service.load_reply(session, post_id, user, now)[0].thread_id
    return render(request, "discussion/history.html", {"history": view, "thread_id": thread_id})


@router.get("/discussion/threads/{thread_id}/history")
def thread_history(request: Request, thread_id: Id, session: SessionDep, user: OptionalUser) -> Any:
    return _history(request, session, user, THREAD, thread_id)


@router.get("/discussion/replies/{reply_id}/history")
def reply_history(request: Request, reply_id: Id, session: SessionDep, user: OptionalUser) -> Any:
    return _history(request, session, user, REPLY, reply_id)
