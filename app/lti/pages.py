"""The LTI endpoints the LMS talks to: ``/lti/login`` (GET and POST), ``/lti/launch``, ``/lti/jwks``,
and the deep-linking picker (``/lti/deep-link``) an instructor sees inside the LMS."""

from __future__ import annotations

from typing import Annotated, Any
from urllib.parse import urlsplit

from fastapi import APIRouter, Form, Query, Request
from fastapi.responses import JSONResponse, RedirectResponse, Response
from starlette.concurrency import run_in_threadpool

from app.accounts.deps import CurrentUser, start_session
from app.courses import repository as courses_repository
from app.kit.db import utcnow
from app.kit.errors import Forbidden, InvalidInput
from app.kit.headers import CSP
from app.kit.links import absolute_url
from app.kit.settings import Settings
from app.kit.web import CsrfProtected, SessionDep, SettingsDep, render
from app.lti import claims, deep_linking, framing, keys, line_items, login, provision, repository
from app.lti.launch import LaunchRefused, verify

router = APIRouter(prefix="/lti", tags=["lti"])

LOGIN_FIELDS = (
    "iss",
    "login_hint",
    "target_link_uri",
    "lti_message_hint",
    "client_id",
    "lti_deployment_id",
    "lti_storage_target",
)
# The launch page's script proves it read the state back from the platform's storage with this
# header: a cross-site form cannot send a custom header, and a cross-site fetch with one needs a
# CORS preflight this site never grants.
STORAGE_CHECK_HEADER = "x-lti-storage-check"
STORAGE_TARGET_MAX = 200


def _storage_target(value: str) -> str | None:
    """The platform's storage frame name ("_parent" or a frame's name), or None if unusable."""
    value = value.strip()
    if not value or len(value) > STORAGE_TARGET_MAX or any(c in value for c in "<>\"'"):
        return None
    return value


def _launch_url(settings: Settings) -> str:
    return absolute_url(settings, "/lti/launch")


def _state_cookie_args(settings: Settings) -> dict[str, Any]:
    # The launch is a cross-site POST from the LMS: the state cookie must travel with it, which
    # browsers allow only for SameSite=None; Secure (https). Plain-http development keeps Lax.
    secure = absolute_url(settings, "/").startswith("https://")
    return {"httponly": True, "secure": secure, "samesite": "none" if secure else "lax", "path": "/lti/"}


async def _login(request: Request, session: SessionDep, settings: SettingsDep) -> Response:
    params = {k: str(v) for k, v in request.query_params.items() if k in LOGIN_FIELDS}
    if request.method == "POST":
        form = await request.form()
        params |= {k: str(v) for k, v in form.items() if k in LOGIN_FIELDS and isinstance(v, str)}
    params = {k: v[:2000] for k, v in params.items()}
    # Async only to read a POSTed form; the database work runs in the thread pool like any route's.
    redirect = await run_in_threadpool(
        login.start, session, settings, _launch_url(settings), params, utcnow()
    )
    framing.allow_for_response(request, redirect.platform)  # an LMS iframe may show this answer
    target = _storage_target(params.get("lti_storage_target", ""))
    response: Response
    if target is None:
        response = RedirectResponse(redirect.url, status_code=302)
    else:  # store the state in the platform's frame first, then go on to its authorization URL
        response = render(
            request,
            "lti/login_storage.html",
            {
                "auth_url": redirect.url,
                "state": redirect.state,
                "target": target,
                "platform_origin": framing.origin_of(redirect.platform.auth_url) or "",
            },
        )
    response.set_cookie(
        login.cookie_name(redirect.state),
        redirect.state,
        max_age=redirect.max_age_s,
        **_state_cookie_args(settings),
    )
    return response


router.add_api_route("/login", _login, methods=["GET", "POST"], include_in_schema=False)


def _storage_checked(request: Request, settings: Settings, state: str) -> bool:
    """The launch page's own script read the state back from the platform's storage: the header
    names the state, and the request comes from this site itself (Origin, Sec-Fetch-Site)."""
    ours = framing.origin_of(absolute_url(settings, "/"))
    return (
        bool(state)
        and request.headers.get(STORAGE_CHECK_HEADER) == state
        and request.headers.get("origin") == ours
        and request.headers.get("sec-fetch-site", "same-origin") == "same-origin"
    )


@router.post("/launch", include_in_schema=False)
def launch(
    request: Request,
    session: SessionDep,
    settings: SettingsDep,
    id_token: Annotated[str, Form(max_length=100_000)] = "",
    state: Annotated[str, Form(max_length=200)] = "",
    lti_storage_target: Annotated[str, Form(max_length=STORAGE_TARGET_MAX)] = "",
) -> Response:
    now = utcnow()
    platform = login.platform_of_state(session, state, now) if state else None
    if platform is not None:  # the answer, refusals included, may show in the platform's iframe
        framing.allow_for_response(request, platform)
    cookie = request.cookies.get(login.cookie_name(state))
    storage = _storage_target(lti_storage_target)
    checked = storage is not None and _storage_checked(request, settings, state)
    if cookie != state and not checked and storage is not None and platform is not None:
        # No state cookie (a third-party iframe): read the state back from the platform's
        # storage in this browser; the page's script then sends this launch again, checked.
        return render(
            request,
            "lti/launch_storage.html",
            {
                "id_token": id_token,
                "state": state,
                "target": storage,
                "platform_origin": framing.origin_of(platform.auth_url) or "",
            },
        )
    verified = verify(session, id_token, state, state if checked else cookie, now)
    user = provision.launch_user(session, verified)
    if verified.message_type == claims.DEEP_LINKING_REQUEST:
        if not claims.teaches(verified.roles):
            raise LaunchRefused("only instructors may add Torchdrill links to an LMS course.")
        pending = deep_linking.pending_from(verified)
        start_session(request, session, user)
        framing.allow_for_session(request, verified)
        request.session[deep_linking.SESSION_KEY] = pending
        target = "/lti/deep-link"
    else:
        course, context = provision.course_for_launch(session, verified, user)
        provision.place_member(session, course, user, verified.roles, now)
        link = provision.resource_target(session, verified, context)
        start_session(request, session, user)
        framing.allow_for_session(request, verified)
        if link is not None and link.assignment_id is not None:
            assignment = courses_repository.get_assignment(session, link.assignment_id)
            assert assignment is not None
            # If the platform fails now, the passback sweep makes the column later.
            line_items.ensure(session, settings.secret_key, verified, context, assignment)
            target = f"/courses/{course.id}/assignments/{assignment.id}"
        elif link is not None and link.problem_id is not None:
            target = f"/problems/{repository.problem_slug(session, link.problem_id)}"
        else:
            target = f"/courses/{course.id}"
    response = JSONResponse({"location": target}) if checked else RedirectResponse(target, status_code=303)
    response.delete_cookie(login.cookie_name(state), path="/lti/")
    return response


@router.get("/jwks", include_in_schema=False)
def jwks(session: SessionDep, settings: SettingsDep) -> Response:
    return JSONResponse(
        keys.published(session, settings.secret_key), headers={"Cache-Control": "max-age=300"}
    )


def _pending(request: Request) -> dict[str, Any]:
    pending = request.session.get(deep_linking.SESSION_KEY)
    if not isinstance(pending, dict):
        raise Forbidden("Open this page from your LMS's “add a Torchdrill link” (deep linking) button.")
    return pending


def _picker(
    request: Request,
    session: SessionDep,
    user: CurrentUser,
    q: str,
    error: str | None = None,
    status: int = 200,
) -> Any:
    pending = _pending(request)
    choices = repository.picker_choices(session, user, pending, q)
    context = {"choices": choices, "q": q, "error": error, "context_title": pending.get("context_title", "")}
    return render(request, "lti/deep_link.html", context, status_code=status)


@router.get("/deep-link", include_in_schema=False)
def deep_link_page(
    request: Request, session: SessionDep, user: CurrentUser, q: Annotated[str, Query(max_length=100)] = ""
) -> Any:
    return _picker(request, session, user, q)


@router.post("/deep-link", include_in_schema=False, dependencies=[CsrfProtected])
def deep_link_pick(
    request: Request,
    session: SessionDep,
    settings: SettingsDep,
    user: CurrentUser,
    choice: Annotated[str, Form(max_length=300)] = "",
    q: Annotated[str, Form(max_length=100)] = "",
) -> Any:
    pending = _pending(request)
    try:
        item = repository.picked_item(session, user, pending, choice, _launch_url(settings))
    except InvalidInput as exc:
        return _picker(request, session, user, q, error=exc.detail, status=422)
    answer = deep_linking.reply(session, settings.secret_key, pending, item)
    request.session.pop(deep_linking.SESSION_KEY, None)
    response = render(request, "lti/deep_link_return.html", {"reply": answer})
    # The one page whose form leaves the site: it posts to the LMS's return URL, and only there.
    parts = urlsplit(answer.return_url)
    response.headers["content-security-policy"] = CSP.replace(
        "form-action 'self'", f"form-action 'self' {parts.scheme}://{parts.netloc}"
    )
    return response
