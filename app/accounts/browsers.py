"""Browsers that logged in to an account before: a signed cookie naming those accounts.

A browser that logs in (or signs up, or resets the password from the mailed link) gets a
long-lived cookie, signed with ``TORCHDRILL_SECRET_KEY``, listing the accounts it logged in to.
When guesses at one account from many addresses trip that account's limit, only browsers without
the cookie are refused (``service.check_login_allowed``): the owner's browsers keep logging in,
with the per-client allowance everyone has. A cookie is only ever earned by knowing the password
(or reading the account's mail), so holding one gives a guesser nothing.
"""

from __future__ import annotations

from collections.abc import Collection

from fastapi import Request, Response
from itsdangerous import BadSignature, URLSafeTimedSerializer

from app.kit.settings import Settings

MAX_AGE_S = 365 * 24 * 3600
MAX_ACCOUNTS = 5  # a shared computer remembers its last few accounts
SALT = "torchdrill.known-browser"


def cookie_name(settings: Settings) -> str:
    return f"{settings.session_cookie}_known"


def _serializer(settings: Settings) -> URLSafeTimedSerializer:
    return URLSafeTimedSerializer(settings.secret_key, salt=SALT)


def known_users(request: Request, settings: Settings) -> frozenset[int]:
    """The accounts this browser logged in to (none for a missing, forged or expired cookie)."""
    value = request.cookies.get(cookie_name(settings))
    if not value:
        return frozenset()
    try:
        ids = _serializer(settings).loads(value, max_age=MAX_AGE_S)
    except BadSignature:
        return frozenset()
    if not isinstance(ids, list):
        return frozenset()
    return frozenset(i for i in ids if isinstance(i, int) and not isinstance(i, bool))


def remember(request: Request, response: Response, settings: Settings, user_id: int) -> None:
    """Add ``user_id`` to this browser's known accounts (the cookie goes out with ``response``)."""
    ids: Collection[int] = [i for i in known_users(request, settings) if i != user_id][-(MAX_ACCOUNTS - 1) :]
    response.set_cookie(
        cookie_name(settings),
        _serializer(settings).dumps([*sorted(ids), user_id]),
        max_age=MAX_AGE_S,
        path="/",
        httponly=True,
        samesite="lax",
        secure=settings.secure_cookies,
    )
