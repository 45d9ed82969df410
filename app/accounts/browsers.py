"""Browsers that logged in to an account before: a signed cookie naming the browser and those accounts.

A browser that logs in (or signs up, or resets the password from the mailed link) gets a
long-lived cookie, signed with ``TORCHDRILL_SECRET_KEY``: a random id of the browser and the
accounts it logged in to. When guesses at one account from many addresses trip that account's
limit, only browsers without the cookie are refused (``service.check_login_allowed``): the owner's
browsers keep logging in. A cookie is only ever earned by knowing the password (or reading the
account's mail), and a known browser's own failures are counted per browser id (a new one at every
sign-in), so even a copied cookie used from many addresses gets a handful of guesses a window
(``TORCHDRILL_LOGIN_MAX_FAILURES_PER_EMAIL``), not a botnet's worth.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass

from fastapi import Request, Response
from itsdangerous import BadSignature, URLSafeTimedSerializer

from app.kit.settings import Settings

MAX_AGE_S = 365 * 24 * 3600
MAX_ACCOUNTS = 5  # a shared computer remembers its last few accounts
SALT = "torchdrill.known-browser"


@dataclass(frozen=True)
class KnownBrowser:
    id: str  # random, 22 characters; never shown, only counted
    users: frozenset[int]  # the accounts it logged in to


def cookie_name(settings: Settings) -> str:
    return f"{settings.session_cookie}_known"


def _serializer(settings: Settings) -> URLSafeTimedSerializer:
    return URLSafeTimedSerializer(settings.secret_key, salt=SALT)


def known_browser(request: Request, settings: Settings) -> KnownBrowser | None:
    """This browser, if its cookie is one we signed (a missing, forged or expired one: None)."""
    value = request.cookies.get(cookie_name(settings))
    if not value:
        return None
    try:
        data = _serializer(settings).loads(value, max_age=MAX_AGE_S)
    except BadSignature:
        return None
    if not (isinstance(data, dict) and isinstance(data.get("b"), str) and isinstance(data.get("u"), list)):
        return None
    users = frozenset(i for i in data["u"] if isinstance(i, int) and not isinstance(i, bool))
    return KnownBrowser(data["b"][:32], users)


def remember(request: Request, response: Response, settings: Settings, user_id: int) -> None:
    """Add ``user_id`` to this browser's accounts (the cookie goes out with ``response``), under a
    new browser id: every sign-in rotates it, so a copy of an older cookie counts apart from the
    owner's (and the owner's browser leaves any limit a copy ran into by signing in, or resetting
    the password from the mail)."""
    browser = known_browser(request, settings)
    others = sorted(i for i in (browser.users if browser else ()) if i != user_id)[-(MAX_ACCOUNTS - 1) :]
    payload = {"b": secrets.token_urlsafe(16), "u": [*others, user_id]}
    response.set_cookie(
        cookie_name(settings),
        _serializer(settings).dumps(payload),
        max_age=MAX_AGE_S,
        path="/",
        httponly=True,
        samesite="lax",
        secure=settings.secure_cookies,
    )
