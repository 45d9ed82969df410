from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated

import anyio
from fastapi import Depends, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from app.accounts import service, tokens, two_factor
from app.accounts.models import User
from app.kit.db import Database, utcnow
from app.kit.errors import InvalidToken, LoginRequired
from app.kit.limits import RequestLimiter, make_limiter
from app.kit.web import SessionDep, SettingsDep, get_database

SESSION_USER_KEY = "uid"
SESSION_EPOCH_KEY = "epoch"  # the user's session_epoch at log-in; a password reset bumps it


def optional_user(request: Request, session: SessionDep) -> User | None:
    """The logged-in user, or None; also exposes the user to page templates."""
    user_id = request.session.get(SESSION_USER_KEY)
    user = service.get_user(session, user_id) if isinstance(user_id, int) else None
    if user is not None and request.session.get(SESSION_EPOCH_KEY, 0) != user.session_epoch:
        user = None  # made before a password reset: no longer valid
    if user is None and user_id is not None:
        request.session.pop(SESSION_USER_KEY, None)
        request.session.pop(SESSION_EPOCH_KEY, None)
    # Templates get plain values: error pages render after the session has rolled back and closed.
    viewer = {"id": user.id, "email": user.email, "role": user.role} if user is not None else None
    request.state.page_context = {**getattr(request.state, "page_context", {}), "current_user": viewer}
    if user is not None:
        _enrolment_gate(request, user)
    return user


def _enrolment_gate(request: Request, user: User) -> None:
    """Staff who must turn on two-factor sign-in (TORCHDRILL_REQUIRE_2FA_FOR_STAFF) reach only its
    settings page until they do: 403 ``two_factor_required`` (pages redirect there)."""
    path = request.url.path
    on_settings_page = path == two_factor.SETTINGS_PAGE or path.startswith(two_factor.SETTINGS_PAGE + "/")
    if not on_settings_page and two_factor.must_enrol(user, request.app.state.settings.require_2fa_for_staff):
        raise two_factor.TwoFactorRequired()


def current_user(user: Annotated[User | None, Depends(optional_user)]) -> User:
    if user is None:
        raise LoginRequired()
    return user


OptionalUser = Annotated[User | None, Depends(optional_user)]
CurrentUser = Annotated[User, Depends(current_user)]


def admin_user(user: CurrentUser) -> User:
    service.require_role(user, "admin")
    return user


def staff_user(user: CurrentUser) -> User:
    service.require_role(user, "instructor", "admin")
    return user


AdminUser = Annotated[User, Depends(admin_user)]
StaffUser = Annotated[User, Depends(staff_user)]


def client_address(request: Request) -> str:
    """The client's address, for per-client limits: the TCP peer, or what a trusted proxy
    (``TORCHDRILL_FORWARDED_ALLOW_IPS``) forwarded in X-Forwarded-For (``app.kit.hosts``)."""
    return request.client.host if request.client else "unknown"


# --- bearer tokens (the API, and authoring scripts): accounts own tokens and who they belong to ---
bearer = HTTPBearer(
    auto_error=False,
    description="A personal access token from `POST /api/v1/auth/token` or the account page.",
)


def get_limiter(request: Request) -> RequestLimiter:
    limiter: RequestLimiter | None = getattr(request.app.state, "api_v1_limiter", None)
    if limiter is None:
        limiter = request.app.state.api_v1_limiter = make_limiter(request.app.state.settings)
    return limiter


TOKEN_NEEDED = "This needs a token: send `Authorization: Bearer <token>`."


@dataclass(frozen=True)
class TokenToCheck:
    """A bearer token the request sent, not yet looked up: :meth:`owner` looks it up, in the
    worker thread it is called from.

    :func:`optional_api_user` calls it in a hop of its own, before the route runs; the hottest
    route (``POST /api/v1/submissions``, through :func:`token_to_check`) calls it first thing in
    the worker thread that does its database work: a hop to a worker thread and back costs the
    web process ~0.3 ms of CPU (thread wake-ups and the interpreter's lock; docs/benchmarks.md,
    the twelfth pass). Either way the same 401 and 429; only a request to that route whose body is
    invalid too learns that (422) before it learns its token is bad.
    """

    db: Database
    limiter: RequestLimiter
    token: str
    per_minute: int
    staff_need_2fa: bool  # TORCHDRILL_REQUIRE_2FA_FOR_STAFF

    @classmethod
    def sent(
        cls, request: Request, settings: SettingsDep, credentials: HTTPAuthorizationCredentials | None
    ) -> TokenToCheck | None:
        """The request's bearer token; None without an Authorization header; 401 for another scheme."""
        if request.headers.get("authorization") is None:
            return None
        if credentials is None:
            raise InvalidToken("Send the token as `Authorization: Bearer <token>`.")
        return cls(
            get_database(request),
            get_limiter(request),
            credentials.credentials,
            settings.api_requests_per_minute,
            settings.require_2fa_for_staff,
        )

    def owner(self) -> User:
        """The token's owner, counted against the request limit, looked up in one short
        transaction of its own (returned detached, its premium grants loaded); 401 for a bad or
        revoked token. Blocking: call it from a worker thread."""
        with self.db.transaction() as session:
            user = tokens.user_for_token(session, self.token, utcnow())
        if user is None:
            raise InvalidToken()
        if two_factor.must_enrol(user, self.staff_need_2fa):
            raise two_factor.TwoFactorRequired()
        self.limiter.hit(user.id, self.per_minute)  # a Redis round trip when scaled out: in this thread too
        return user


async def optional_api_user(
    request: Request,
    settings: SettingsDep,
    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(bearer)],
) -> User | None:
    """The token's owner; None without an Authorization header; 401 for a bad or revoked token.

    Looked up in its own transaction, in one worker thread, so the request holds no database
    connection once it is known (the owner is returned detached, its premium grants loaded): a
    request never keeps a pooled connection while it waits for a thread, which with PostgreSQL's
    capped pool could deadlock many requests in flight (docs/architecture.md).
    """
    token = TokenToCheck.sent(request, settings, credentials)
    return None if token is None else await anyio.to_thread.run_sync(token.owner)


async def api_user(user: Annotated[User | None, Depends(optional_api_user)]) -> User:
    if user is None:
        raise InvalidToken(TOKEN_NEEDED)
    return user


async def token_to_check(
    request: Request,
    settings: SettingsDep,
    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(bearer)],
) -> TokenToCheck:
    """The request's bearer token, not yet looked up (:meth:`TokenToCheck.owner`); 401 at once
    when there is none."""
    token = TokenToCheck.sent(request, settings, credentials)
    if token is None:
        raise InvalidToken(TOKEN_NEEDED)
    return token


OptionalApiUser = Annotated[User | None, Depends(optional_api_user)]
ApiUser = Annotated[User, Depends(api_user)]
ApiToken = Annotated[TokenToCheck, Depends(token_to_check)]
