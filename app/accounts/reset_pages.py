"""The "Forgot password?" pages: ask for a link, then choose a new password (HTML forms with CSRF)."""

from __future__ import annotations

from typing import Annotated, Any
from urllib.parse import urlencode

from fastapi import APIRouter, Form, Query, Request
from fastapi.responses import RedirectResponse

from app.accounts import browsers, password_reset
from app.accounts.deps import client_address
from app.kit.db import utcnow
from app.kit.errors import FormErrors, TooManyRequests
from app.kit.mail import Mailer
from app.kit.settings import Settings
from app.kit.web import CsrfProtected, SessionDep, SettingsDep, render

router = APIRouter(tags=["accounts"])

Token = Annotated[str, Query(max_length=200)]


def get_mailer(request: Request, settings: Settings) -> Mailer:
    mailer: Mailer | None = getattr(request.app.state, "mailer", None)
    if mailer is None:
        mailer = request.app.state.mailer = Mailer(settings)
    return mailer


@router.get("/forgot-password")
def forgot_page(request: Request, email: Annotated[str, Query(max_length=320)] = "") -> Any:
    return render(request, "accounts/forgot.html", {"values": {"email": email}, "errors": {}, "sent": False})


@router.post("/forgot-password", dependencies=[CsrfProtected])
def forgot(
    request: Request, session: SessionDep, settings: SettingsDep, email: Annotated[str, Form()] = ""
) -> Any:
    values = {"email": email}
    if "@" not in email or len(email) > 320:
        errors = {"email": "Enter the email address of your account."}
        return render(
            request, "accounts/forgot.html", {"values": values, "errors": errors, "sent": False}, 400
        )
    try:
        password_reset.request_reset(
            session, settings, get_mailer(request, settings), email, client_address(request), utcnow()
        )
    except TooManyRequests as exc:
        context = {"values": values, "errors": {"form": exc.detail}, "sent": False}
        response = render(request, "accounts/forgot.html", context, 429)
        response.headers.update(exc.headers)
        return response
    # The same answer whether or not an account has this email.
    return render(request, "accounts/forgot.html", {"values": values, "errors": {}, "sent": True})


@router.get("/reset-password")
def reset_page(request: Request, session: SessionDep, token: Token = "") -> Any:
    errors: dict[str, str] = {}
    try:
        password_reset.check_token(session, token, utcnow())
    except FormErrors as exc:
        errors = exc.errors
    context = {"token": token, "errors": errors, "usable": not errors}
    return render(request, "accounts/reset.html", context, 400 if errors else 200)


@router.post("/reset-password", dependencies=[CsrfProtected])
def reset(
    request: Request,
    session: SessionDep,
    settings: SettingsDep,
    token: Annotated[str, Form(max_length=200)] = "",
    password: Annotated[str, Form()] = "",
) -> Any:
    try:
        user = password_reset.reset_password(session, token, password, utcnow())
    except FormErrors as exc:
        usable = "form" not in exc.errors
        return render(
            request, "accounts/reset.html", {"token": token, "errors": exc.errors, "usable": usable}, 400
        )
    request.session.clear()  # this browser too: log in again with the new password
    response = RedirectResponse("/login?" + urlencode({"email": user.email, "reset": "1"}), status_code=303)
    browsers.remember(request, response, settings, user.id)  # it read the account's mail
    return response
