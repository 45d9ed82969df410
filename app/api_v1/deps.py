"""Bearer-token authentication and the per-user request limit of API v1."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from app.accounts import service as accounts
from app.accounts.models import User
from app.api_v1.limits import RequestLimiter, make_limiter
from app.kit.db import utcnow
from app.kit.errors import InvalidToken, PayloadTooLarge
from app.kit.web import SessionDep, SettingsDep

bearer = HTTPBearer(
    auto_error=False,
    description="A personal access token from `POST /api/v1/auth/token` or the account page.",
)


def get_limiter(request: Request) -> RequestLimiter:
    limiter: RequestLimiter | None = getattr(request.app.state, "api_v1_limiter", None)
    if limiter is None:
        limiter = request.app.state.api_v1_limiter = make_limiter(request.app.state.settings)
    return limiter


def optional_api_user(
    request: Request,
    session: SessionDep,
    settings: SettingsDep,
    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(bearer)],
) -> User | None:
    """The token's owner; None without an Authorization header; 401 for a bad or revoked token."""
    if request.headers.get("authorization") is None:
        return None
    if credentials is None:
        raise InvalidToken("Send the token as `Authorization: Bearer <token>`.")
    user = accounts.user_for_token(session, credentials.credentials, utcnow())
    if user is None:
        raise InvalidToken()
    get_limiter(request).hit(user.id, settings.api_requests_per_minute)
    return user


def api_user(user: Annotated[User | None, Depends(optional_api_user)]) -> User:
    if user is None:
        raise InvalidToken("This needs a token: send `Authorization: Bearer <token>`.")
    return user


OptionalApiUser = Annotated[User | None, Depends(optional_api_user)]
ApiUser = Annotated[User, Depends(api_user)]


def limit_body(request: Request, settings: SettingsDep) -> None:
    """Refuse a declared body far larger than any acceptable submission before reading it."""
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > 6 * settings.max_code_bytes + 4096:
        raise PayloadTooLarge(
            f"The request body is {declared} bytes; code is limited to {settings.max_code_bytes}."
        )
