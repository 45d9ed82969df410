"""The solutions pages (HTML): a problem's solutions (or the lock with "give up and show
solutions"), publishing, one solution with its votes and comments, "compare with mine", the
editorial. Plain forms with the session's CSRF token over the same services as the API."""

from __future__ import annotations

from typing import Annotated, Any
from urllib.parse import quote

from fastapi import APIRouter, Form, Path, Query, Request
from fastapi.responses import RedirectResponse

from app.accounts.deps import CurrentUser
from app.kit import web
from app.kit.db import utcnow
from app.kit.errors import AppError
from app.kit.markdown import highlight_code
from app.kit.paging import next_url
from app.kit.web import CsrfProtected, SessionDep, render, shown_on_form
from app.solutions import editorial, holds, repository, service
from app.solutions.deps import PostLimiter
from app.submissions.code_diff import line_diff

router = APIRouter(tags=["solution pages"])

NOTICE_KEY = "solutions_notice"
Slug = Annotated[str, Path(max_length=80)]
SolutionId = Annotated[int, Path(ge=1, le=2**31 - 1)]


def notice(request: Request, url: str, text: str) -> RedirectResponse:
    request.session[NOTICE_KEY] = text
    return RedirectResponse(url, status_code=303)


def pop_notice(request: Request) -> str | None:
    """This page's notice, or what the report form said (:data:`app.kit.web.POST_NOTICE_KEY`)."""
    return web.pop_notice(request, NOTICE_KEY)


def _listing_page(
    request: Request,
    session: SessionDep,
    user: CurrentUser,
    slug: str,
    *,
    sort: str,
    tag: str | None,
    after: str | None,
    form: dict[str, Any] | None = None,
    refusal: AppError | None = None,
) -> Any:
    now = utcnow()
    found = service.state(session, slug, user, now)
    problem, opening = found.problem, found.opening
    context: dict[str, Any] = {"problem": problem, "opening": opening, "notice": pop_notice(request),
                               "sort": sort, "tag": tag or "", "form": form or {},
                               "error": refusal.detail if refusal else None}  # fmt: skip
    context["has_editorial"] = bool(editorial.source(session, problem).strip())
    if opening.open:
        _found, items, cursor = service.listing(session, user, slug, now, sort=sort, tag=tag, after=after)
        mine = repository.accepted_submits(session, user.id, problem.id)
        published = repository.published_submission_ids(session, [s.id for s in mine])
        context |= {"solutions": items, "cursor": cursor, "tags": service.tags(session, problem),
                    "publishable": [s for s in mine if s.id not in published]}  # fmt: skip
    return render(request, "solutions/list.html", context, refusal=refusal)


@router.get("/problems/{slug}/solutions")
def solutions_page(
    request: Request,
    slug: Slug,
    user: CurrentUser,
    session: SessionDep,
    sort: Annotated[str, Query(pattern="^(votes|newest)$")] = "votes",
    tag: Annotated[str | None, Query(max_length=service.MAX_TAG)] = None,
    after: Annotated[str | None, Query(max_length=1000)] = None,
) -> Any:
    return _listing_page(request, session, user, slug, sort=sort, tag=tag, after=after)


@router.post("/problems/{slug}/give-up", dependencies=[CsrfProtected])
def give_up(request: Request, slug: Slug, user: CurrentUser, session: SessionDep) -> Any:
    service.give_up(session, user, slug, utcnow())
    return notice(
        request, f"/problems/{quote(slug)}/solutions", "Solutions are open: read how others did it."
    )


@router.post("/problems/{slug}/solutions", dependencies=[CsrfProtected])
def publish(
    request: Request,
    slug: Slug,
    user: CurrentUser,
    session: SessionDep,
    limiter: PostLimiter,
    submission_id: Annotated[int, Form(ge=1, le=2**31 - 1)],
    title: Annotated[str, Form(max_length=service.MAX_TITLE * 2)] = "",
    write_up: Annotated[str, Form(max_length=service.MAX_WRITE_UP * 2)] = "",
    tags: Annotated[str, Form(max_length=1000)] = "",
) -> Any:
    """Publish; a refusal (a mistake, already published, the rate limit) shows the form again
    with what was typed and the reason, under the refusal's status (:func:`shown_on_form`)."""
    values = {"submission_id": submission_id, "title": title, "write_up": write_up, "tags": tags}
    try:
        with session.begin_nested():
            solution = service.publish(session, user, slug, submission_id, title, write_up, tags.split(","),
                                       utcnow(), limiter=limiter)  # fmt: skip
    except AppError as exc:
        if not shown_on_form(exc):
            raise
        return _listing_page(request, session, user, slug, sort="votes", tag=None, after=None, form=values,
                             refusal=exc)  # fmt: skip
    return notice(request, f"/solutions/{solution.id}", "Your solution is published.")


def _detail(
    request: Request,
    session: SessionDep,
    user: CurrentUser,
    solution_id: int,
    after: str | None,
    extra: dict[str, Any],
    refusal: AppError | None = None,
) -> Any:
    """A solution's page with one keyset page of its comments (``service.COMMENT_PAGE``)."""
    now = utcnow()
    view, problem = service.read(session, user, solution_id, now)
    comments, cursor = service.comments(
        session, user, solution_id, now, after=after, limit=service.COMMENT_PAGE
    )
    newer = next_url(f"/solutions/{solution_id}", {}, cursor)
    return render(request, "solutions/detail.html", {"problem": problem, "s": view, "comments": comments,
                  "newer_comments": f"{newer}#comments" if newer else None, "paged": after is not None,
                  "code_html": highlight_code(view.code), **extra}, refusal=refusal)  # fmt: skip


@router.get("/solutions/{solution_id}")
def solution_page(
    request: Request,
    solution_id: SolutionId,
    user: CurrentUser,
    session: SessionDep,
    after: Annotated[str | None, Query(max_length=1000)] = None,
) -> Any:
    return _detail(request, session, user, solution_id, after, {"notice": pop_notice(request)})


@router.post("/solutions/{solution_id}/vote", dependencies=[CsrfProtected])
def vote(
    request: Request,
    solution_id: SolutionId,
    user: CurrentUser,
    session: SessionDep,
    action: Annotated[str, Form(pattern="^(up|undo)$")] = "up",
) -> Any:
    service.vote(session, user, solution_id, action == "up", utcnow())
    return RedirectResponse(f"/solutions/{solution_id}#votes", status_code=303)


@router.post("/solutions/{solution_id}/comments", dependencies=[CsrfProtected])
def comment(
    request: Request,
    solution_id: SolutionId,
    user: CurrentUser,
    session: SessionDep,
    limiter: PostLimiter,
    body: Annotated[str, Form(max_length=service.MAX_COMMENT * 2)] = "",
) -> Any:
    """Comment; a refusal (a mistake, the rate limit) shows the page again with the typed text."""
    now = utcnow()
    try:
        with session.begin_nested():
            row = service.comment(session, user, solution_id, body, now, limiter=limiter)
    except AppError as exc:
        if not shown_on_form(exc):
            raise
        return _detail(request, session, user, solution_id, None,
                       {"comment_error": exc.detail, "comment_body": body}, exc)  # fmt: skip
    return RedirectResponse(service.comment_url(session, solution_id, row.id), status_code=303)


@router.post("/solutions/{solution_id}/delete", dependencies=[CsrfProtected])
def delete(request: Request, solution_id: SolutionId, user: CurrentUser, session: SessionDep) -> Any:
    solution = repository.get(session, solution_id)
    service.delete(session, user, solution_id, utcnow())
    slug = (
        next(iter(service.problems.problems_by_ids(session, {solution.problem_id}))).slug if solution else ""
    )
    return notice(request, f"/problems/{quote(slug)}/solutions", "Your solution was deleted.")


@router.post("/solution-comments/{comment_id}/delete", dependencies=[CsrfProtected])
def delete_comment(
    request: Request,
    comment_id: Annotated[int, Path(ge=1, le=2**31 - 1)],
    user: CurrentUser,
    session: SessionDep,
) -> Any:
    solution_id = service.delete_comment(session, user, comment_id, utcnow())
    return notice(request, f"/solutions/{solution_id}#comments", "Your comment was deleted.")


@router.get("/solutions/{solution_id}/compare")
def compare_with_mine(
    request: Request, solution_id: SolutionId, user: CurrentUser, session: SessionDep
) -> Any:
    """The solution against the reader's latest submission on the problem, as a line diff."""
    view, problem = service.read(session, user, solution_id, utcnow())
    mine = repository.latest_submission(session, user.id, problem.id)
    diff = line_diff(mine.code, view.code) if mine is not None else None
    return render(
        request, "solutions/compare.html", {"problem": problem, "s": view, "mine": mine, "diff": diff}
    )


@router.get("/problems/{slug}/editorial")
def editorial_page(request: Request, slug: Slug, user: CurrentUser, session: SessionDep) -> Any:
    view = editorial.read(session, user, slug, utcnow())
    problem = service.visible_problem(session, slug, user, utcnow())
    return render(request, "solutions/editorial.html", {"problem": problem, "editorial": view})


@router.get("/assignments/{assignment_id}/solution-hold")
def hold_page(
    request: Request,
    assignment_id: Annotated[int, Path(ge=1, le=2**31 - 1)],
    user: CurrentUser,
    session: SessionDep,
) -> Any:
    """The instructor's choice for one assignment: hold its solutions until the deadline, or not."""
    assignment = holds.taught_assignment(session, user, assignment_id)
    held = holds.is_held(session, assignment.id)
    return render(request, "solutions/hold.html",
                  {"assignment": assignment, "held": held, "notice": pop_notice(request)})  # fmt: skip


@router.post("/assignments/{assignment_id}/solution-hold", dependencies=[CsrfProtected])
def set_hold(
    request: Request,
    assignment_id: Annotated[int, Path(ge=1, le=2**31 - 1)],
    user: CurrentUser,
    session: SessionDep,
    held: Annotated[str, Form(pattern="^(yes|no)$")],
) -> Any:
    on = holds.set_hold(session, user, assignment_id, held == "yes", utcnow())
    text = "Solutions are held from students until the deadline." if on else "Solutions are no longer held."
    return notice(request, f"/assignments/{assignment_id}/solution-hold", text)
