"""Sign-up, log-in and log-out pages (HTML forms with CSRF)."""

from __future__ import annotations

from typing import Annotated, Any
from urllib.parse import urlsplit

from fastapi import APIRouter, Form, Query, Request
from fastapi.responses import RedirectResponse

from app.accounts import browsers, service, two_factor_login
from app.accounts.deps import OptionalUser, client_address, end_session, start_session
from app.kit.db import utcnow
from app.kit.errors import FormErrors, TooManyRequests
from app.kit.web import CsrfProtected, SessionDep, SettingsDep, get_database, render

router = APIRouter(tags=["accounts"])


def safe_next(target: str | None) -> str:
    """Only same-site paths are followed after log-in (no open redirects)."""
    if not target or not target.startswith("/") or target.startswith("//") or "\\" in target:
        return "/problems"
    parts = urlsplit(target)
    if parts.scheme or parts.netloc:
        return "/problems"
    return target


def _form_page(
    request: Request, template: str, values: dict[str, Any], errors: dict[str, str], status: int
) -> Any:
    context = {"values": values, "errors": errors, "email_taken": service.EMAIL_TAKEN}
    return render(request, template, context, status_code=status)


@router.get("/signup")
def signup_page(request: Request, user: OptionalUser, next: str | None = None) -> Any:
    if user is not None:
        return RedirectResponse(safe_next(next), status_code=303)
    return _form_page(request, "accounts/signup.html", {"email": "", "next": safe_next(next)}, {}, 200)


@router.post("/signup", dependencies=[CsrfProtected])
def signup(
    request: Request,
    session: SessionDep,
    settings: SettingsDep,
    email: Annotated[str, Form()] = "",
    password: Annotated[str, Form()] = "",
    next: Annotated[str, Form()] = "",
) -> Any:
    values = {"email": email, "next": safe_next(next)}
    try:
        service.check_signup_allowed(get_database(request), settings, client_address(request), utcnow())
        user = service.sign_up(session, email, password)
    except FormErrors as exc:
        kept = {**values, "password": password}  # refilled only when the password itself was fine
        return _form_page(request, "accounts/signup.html", kept, exc.errors, 400)
    except TooManyRequests as exc:
        response = _form_page(request, "accounts/signup.html", values, {"form": exc.detail}, 429)
        response.headers.update(exc.headers)
        return response
    start_session(request, session, user)
    response = RedirectResponse(safe_next(next), status_code=303)
    browsers.remember(request, response, settings, user.id)
    return response


@router.get("/login")
def login_page(
    request: Request,
    user: OptionalUser,
    next: str | None = None,
    email: Annotated[str, Query(max_length=320)] = "",
    reset: bool = False,
) -> Any:
    if user is not None:
        return RedirectResponse(safe_next(next), status_code=303)
    values = {"email": email, "next": safe_next(next), "reset": reset}
    return _form_page(request, "accounts/login.html", values, {}, 200)


@router.post("/login", dependencies=[CsrfProtected])
def login(
    request: Request,
    session: SessionDep,
    settings: SettingsDep,
    email: Annotated[str, Form()] = "",
    password: Annotated[str, Form()] = "",
    next: Annotated[str, Form()] = "",
) -> Any:
    values = {"email": email, "next": safe_next(next)}
    db = get_database(request)
    browser = browsers.known_browser(request, settings)
    try:
        user = service.log_in(
            session, db, settings, email, password, client_address(request), utcnow(), browser=browser
        )
    except FormErrors as exc:
        return _form_page(request, "accounts/login.html", values, exc.errors, 400)
    except TooManyRequests as exc:
        response = _form_page(request, "accounts/login.html", values, {"form": exc.detail}, 429)
        response.headers.update(exc.headers)
        return response
    if user.two_factor_on:  # the session starts after the code (two_factor_pages.second_step)
        end_session(request, session)  # nobody is signed in in this browser while it is pending
        return two_factor_login.begin(request, user, safe_next(next), settings, utcnow())
    start_session(request, session, user)
    response = RedirectResponse(safe_next(next), status_code=303)
    browsers.remember(request, response, settings, user.id)
    return response


@router.post("/logout", dependencies=[CsrfProtected])
def logout(request: Request, session: SessionDep) -> Any:
    """End this browser's session on the server (a copy of the cookie is dead too)."""
    end_session(request, session)
    return RedirectResponse("/problems", status_code=303)
