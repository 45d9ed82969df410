"""Two-factor sign-in pages: the sign-in's second step (``/login/two-factor``) and the settings
(``/account/two-factor``: set up, confirm, recovery codes, turn off)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Form, Request
from fastapi.responses import RedirectResponse

from app.accounts import browsers, two_factor, two_factor_login
from app.accounts.deps import CurrentUser, start_session
from app.accounts.models import User
from app.accounts.reset_pages import get_mailer
from app.kit.db import utcnow
from app.kit.errors import Conflict, FormErrors, TooManyRequests
from app.kit.web import CsrfProtected, SessionDep, SettingsDep, get_database, render

router = APIRouter(tags=["accounts"])

NOTICE_KEY = "two_factor_notice"
Code = Annotated[str, Form(max_length=100)]
Password = Annotated[str, Form(max_length=1024)]


# --- the sign-in's second step --------------------------------------------------------------------


def _second_step_page(request: Request, errors: dict[str, str], status: int) -> Any:
    return render(request, "accounts/login_two_factor.html", {"errors": errors}, status_code=status)


def _start_over(request: Request, message: str) -> Any:
    """Back to the password step (the pending one expired, or never was in this browser)."""
    two_factor_login.forget(request)
    context = {"values": {"email": "", "next": "/problems"}, "errors": {"form": message}}
    return render(request, "accounts/login.html", context, status_code=400)


EXPIRED = "Your sign-in expired or was not started in this browser. Enter your email and password again."


@router.get(two_factor_login.SECOND_STEP_PAGE)
def second_step_page(request: Request) -> Any:
    if two_factor_login.pending(request, utcnow()) is None:
        return RedirectResponse("/login", status_code=303)
    return _second_step_page(request, {}, 200)


@router.post(two_factor_login.SECOND_STEP_PAGE, dependencies=[CsrfProtected])
def second_step(request: Request, session: SessionDep, settings: SettingsDep, code: Code = "") -> Any:
    now = utcnow()
    found = two_factor_login.pending_user(request, session, now)
    if found is None:
        return _start_over(request, EXPIRED)
    waiting, user = found
    if not code.strip():
        return _second_step_page(request, {"code": "Enter the 6-digit code from your app."}, 400)
    try:
        used = two_factor.check_second_factor(session, get_database(request), settings, user, code, now)
    except TooManyRequests as exc:
        response = _second_step_page(request, {"code": exc.detail}, 429)
        response.headers.update(exc.headers)
        return response
    if used is None:
        return _second_step_page(request, {"code": two_factor.WRONG_CODE}, 400)
    start_session(request, session, user)
    if used == "recovery":
        left = two_factor.recovery_codes_left(session, user)
        request.session[NOTICE_KEY] = (
            f"You signed in with a recovery code; it cannot be used again. {left} "
            f"recovery code{'s' if left != 1 else ''} left: make new ones if you are running out."
        )
        response = RedirectResponse(two_factor.SETTINGS_PAGE, status_code=303)
    else:
        response = RedirectResponse(waiting.next, status_code=303)
    browsers.remember(request, response, settings, user.id)  # signed in: this browser is known now
    return response


# --- the settings ---------------------------------------------------------------------------------


def settings_page(
    request: Request,
    session: SessionDep,
    settings: SettingsDep,
    user: User,
    *,
    errors: dict[str, str] | None = None,
    new_codes: list[str] | None = None,
    status_code: int = 200,
) -> Any:
    context = {
        "user": user,
        "setup": two_factor.setup_in_progress(settings, user),
        "codes_left": two_factor.recovery_codes_left(session, user) if user.two_factor_on else 0,
        "required": settings.require_2fa_for_staff and user.is_staff,
        "new_codes": new_codes,  # shown on this response only: only their hashes are stored
        "notice": request.session.pop(NOTICE_KEY, None),
        "errors": errors or {},
    }
    return render(request, "accounts/two_factor.html", context, status_code=status_code)


def _notice(request: Request, text: str) -> RedirectResponse:
    request.session[NOTICE_KEY] = text
    return RedirectResponse(two_factor.SETTINGS_PAGE, status_code=303)


@router.get(two_factor.SETTINGS_PAGE)
def show(request: Request, session: SessionDep, settings: SettingsDep, user: CurrentUser) -> Any:
    return settings_page(request, session, settings, user)


@router.post(two_factor.SETTINGS_PAGE + "/setup", dependencies=[CsrfProtected])
def start_setup(request: Request, session: SessionDep, settings: SettingsDep, user: CurrentUser) -> Any:
    try:
        two_factor.start_setup(session, settings, user)
    except Conflict as exc:
        return settings_page(request, session, settings, user, errors={"form": exc.detail}, status_code=409)
    return RedirectResponse(two_factor.SETTINGS_PAGE + "#setup", status_code=303)


@router.post(two_factor.SETTINGS_PAGE + "/enable", dependencies=[CsrfProtected])
def enable(
    request: Request,
    session: SessionDep,
    settings: SettingsDep,
    user: CurrentUser,
    password: Password = "",
    code: Code = "",
) -> Any:
    try:
        codes = two_factor.enable(
            session,
            get_database(request),
            settings,
            user,
            password,
            code,
            utcnow(),
            get_mailer(request, settings),
        )
    except (FormErrors, Conflict, TooManyRequests) as exc:
        return _refused(request, session, settings, user, exc)
    return settings_page(request, session, settings, user, new_codes=codes)


@router.post(two_factor.SETTINGS_PAGE + "/recovery-codes", dependencies=[CsrfProtected])
def regenerate(
    request: Request,
    session: SessionDep,
    settings: SettingsDep,
    user: CurrentUser,
    regen_password: Password = "",
) -> Any:
    db = get_database(request)
    try:
        codes = two_factor.regenerate_recovery_codes(
            session, db, settings, user, regen_password, utcnow(), get_mailer(request, settings)
        )
    except (FormErrors, Conflict, TooManyRequests) as exc:
        return _refused(request, session, settings, user, exc, "regen_")
    return settings_page(request, session, settings, user, new_codes=codes)


@router.post(two_factor.SETTINGS_PAGE + "/disable", dependencies=[CsrfProtected])
def disable(
    request: Request,
    session: SessionDep,
    settings: SettingsDep,
    user: CurrentUser,
    off_password: Password = "",
    off_code: Code = "",
) -> Any:
    db = get_database(request)
    try:
        mailer = get_mailer(request, settings)
        two_factor.disable(session, db, settings, user, off_password, off_code, utcnow(), mailer)
    except (FormErrors, Conflict, TooManyRequests) as exc:
        return _refused(request, session, settings, user, exc, "off_")
    return _notice(request, "Two-factor sign-in is off. Your password alone signs you in now.")


def _refused(
    request: Request, session: SessionDep, settings: SettingsDep, user: User, exc: Exception, form: str = ""
) -> Any:
    """The settings page again, with why (400 bad input, 409 wrong state, 429 too many tries);
    ``form`` prefixes the field names of the form that failed (the page has several)."""
    if isinstance(exc, FormErrors):
        errors = {(k if k == "form" else form + k): v for k, v in exc.errors.items()}
        return settings_page(request, session, settings, user, errors=errors, status_code=400)
    assert isinstance(exc, Conflict | TooManyRequests)
    response = settings_page(
        request, session, settings, user, errors={"form": exc.detail}, status_code=exc.status_code
    )
    response.headers.update(exc.headers)
    return response
