from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any

import anyio
from fastapi import Depends, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from sqlalchemy.orm import Session

from app.accounts import service, sessions, tokens, two_factor
from app.accounts.models import User, UserSession
from app.kit.db import Database, utcnow
from app.kit.errors import Forbidden, InvalidToken, LoginRequired
from app.kit.limits import RequestLimiter, app_limiter
from app.kit.security import csrf_token
from app.kit.settings import Settings
from app.kit.web import SessionDep, SettingsDep, get_database, require_csrf

SESSION_ID_KEY = "sid"  # in the signed cookie: the random id of the browser's UserSession row


def optional_user(request: Request, session: SessionDep) -> User | None:
    """The signed-in user (their session row live on the server), or None; also exposes the user
    to page templates. A cookie whose session ended (logged out, password changed or reset,
    signed out everywhere, expired) signs nobody in, whatever it still says."""
    session_id = request.session.get(SESSION_ID_KEY)
    found = sessions.find(session, session_id, utcnow()) if isinstance(session_id, str) else None
    user = found[1] if found is not None else None
    request.state.user_session = found[0] if found is not None else None
    if found is None and session_id is not None:
        request.session.clear()  # an ended session's cookie: its CSRF token and notices go too
    # Templates get plain values: error pages render after the session has rolled back and closed.
    viewer = {"id": user.id, "email": user.email, "role": user.role} if user is not None else None
    request.state.page_context = {**getattr(request.state, "page_context", {}), "current_user": viewer}
    if user is not None:
        _enrolment_gate(request, user)
    return user


def start_session(request: Request, session: Session, user: User) -> None:
    """A user has proven who they are: sign this browser in with a new session.

    The one step that sign-up, log-in and a password change end with. Nothing set before it
    carries over (no fixation): a session the cookie still named ends, and the cookie's contents
    are replaced, with a new random session id and a new CSRF token, whatever the browser sent.
    """
    settings: Settings = request.app.state.settings
    end_session(request, session)
    _row, session_id = sessions.start(
        session,
        user,
        utcnow(),
        settings.session_max_age_s,
        user_agent=request.headers.get("user-agent", ""),
        client=client_address(request),
    )
    request.session.clear()
    request.session[SESSION_ID_KEY] = session_id
    csrf_token(request.session)


def end_session(request: Request, session: Session) -> None:
    """Log this browser out: its session ends on the server and the cookie is emptied."""
    session_id = request.session.get(SESSION_ID_KEY)
    found = sessions.find(session, session_id, utcnow()) if isinstance(session_id, str) else None
    if found is not None:
        sessions.end(session, found[0], utcnow())
    request.session.clear()


def current_session(request: Request) -> UserSession | None:
    """The session row :func:`optional_user` found for this request (after it ran)."""
    row: UserSession | None = getattr(request.state, "user_session", None)
    return row


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
    return app_limiter(request)


TOKEN_NEEDED = "This needs a token: send `Authorization: Bearer <token>`."


class InsufficientScope(Forbidden):
    """403: the token is valid but was not given the scope this route needs."""

    code = "insufficient_scope"

    def __init__(self, scope: str) -> None:
        self.scope = scope
        super().__init__(
            f"This token does not have the `{scope}` scope this needs. Make a token with it "
            "(the account page, `POST /api/v1/auth/token` with `scope`, or `torchdrill login --scope`)."
        )

    @property
    def headers(self) -> dict[str, str]:
        return {"WWW-Authenticate": f'Bearer error="insufficient_scope", scope="{self.scope}"'}


@dataclass(frozen=True)
class ApiCaller:
    """Who a bearer token signs in, and what the token may do (its scopes)."""

    user: User
    scopes: frozenset[str]

    def require(self, scope: str) -> User:
        """The token's owner, or 403 ``insufficient_scope`` when the token lacks ``scope``.

        A student's token never holds a staff scope (``teach``): on those routes it gets the
        answer the route gives any student (403 ``forbidden``, or 404 for a course's instructor
        routes), not a hint to make a token that could not be made."""
        if scope not in self.scopes and (scope not in tokens.STAFF_SCOPES or self.user.is_staff):
            raise InsufficientScope(scope)
        return self.user


@dataclass(frozen=True)
class TokenToCheck:
    """A bearer token the request sent, not yet looked up: :meth:`caller` looks it up, in the
    worker thread it is called from.

    :func:`optional_api_caller` calls it in a hop of its own, before the route runs; the hottest
    route (``POST /api/v1/submissions``, through :func:`token_to_check`) calls :meth:`owner` first
    thing in the worker thread that does its database work: a hop to a worker thread and back
    costs the web process ~0.3 ms of CPU (thread wake-ups and the interpreter's lock;
    docs/benchmarks.md, the twelfth pass). Either way the same 401, 403 and 429; only a request to
    that route whose body is invalid too learns that (422) before it learns its token is bad.
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

    def caller(self) -> ApiCaller:
        """The token's owner and scopes, counted against the request limit, looked up in one short
        transaction of its own (the owner returned detached, its premium grants loaded); 401 for
        a bad, revoked or expired token. Blocking: call it from a worker thread."""
        with self.db.transaction() as session:
            found = tokens.owner_and_scopes(session, self.token, utcnow())
        if found is None:
            raise InvalidToken()
        if two_factor.must_enrol(found[0], self.staff_need_2fa):
            raise two_factor.TwoFactorRequired()
        self.limiter.hit(found[0].id, self.per_minute)  # a Redis round trip when scaled out: here too
        return ApiCaller(*found)

    def owner(self, scope: str) -> User:
        """:meth:`caller`'s user, when the token has ``scope`` (403 otherwise)."""
        return self.caller().require(scope)


async def optional_api_caller(
    request: Request,
    settings: SettingsDep,
    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(bearer)],
) -> ApiCaller | None:
    """The token's owner and scopes; None without an Authorization header; 401 for a bad, revoked
    or expired token. Resolved once per request (FastAPI caches it for every dependency below).

    Looked up in its own transaction, in one worker thread, so the request holds no database
    connection once it is known (the owner is returned detached, its premium grants loaded): a
    request never keeps a pooled connection while it waits for a thread, which with PostgreSQL's
    capped pool could deadlock many requests in flight (docs/architecture.md).
    """
    token = TokenToCheck.sent(request, settings, credentials)
    return None if token is None else await anyio.to_thread.run_sync(token.caller)


OptionalApiCaller = Annotated[ApiCaller | None, Depends(optional_api_caller)]


async def optional_api_user(caller: OptionalApiCaller) -> User | None:
    """The token's owner, or None without a token (the route's scope is checked by :func:`needs`)."""
    return caller.user if caller is not None else None


async def api_user(user: Annotated[User | None, Depends(optional_api_user)]) -> User:
    if user is None:
        raise InvalidToken(TOKEN_NEEDED)
    return user


@dataclass(frozen=True)
class ScopeCheck:
    """A route's scope: a request with a token lacking it is refused (403 ``insufficient_scope``);
    one without a token is left to the route's own sign-in rule (anonymous reads, or a session)."""

    scope: str

    async def __call__(self, caller: OptionalApiCaller) -> None:
        if caller is not None:
            caller.require(self.scope)


def needs(scope: str) -> Any:
    """``dependencies=[needs("read")]`` on a route or a router (``tokens.SCOPES``)."""
    assert scope in tokens.SCOPES, scope
    return Depends(ScopeCheck(scope))


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


def user_with_scope(session_user: User | None, caller: ApiCaller | None, scope: str) -> User:
    """The caller of a route that takes a session or a token: a token needs ``scope``
    (403 ``insufficient_scope``); nobody signed in is a 401."""
    user = caller.require(scope) if caller is not None else session_user
    if user is None:
        raise LoginRequired()
    return user


async def writer_with_scope(
    request: Request, session_user: User | None, caller: ApiCaller | None, scope: str
) -> User:
    """:func:`user_with_scope` for a route that changes something: a session request must carry
    the CSRF token (a browser never attaches ``Authorization: Bearer`` by itself)."""
    user = user_with_scope(session_user, caller, scope)
    if caller is None:
        await require_csrf(request)
    return user


def _scoped_reader(scope: str) -> Any:
    def dependency(session_user: OptionalUser, caller: OptionalApiCaller) -> User:
        return user_with_scope(session_user, caller, scope)

    return dependency


def _scoped_writer(scope: str) -> Any:
    async def dependency(request: Request, session_user: OptionalUser, caller: OptionalApiCaller) -> User:
        return await writer_with_scope(request, session_user, caller, scope)

    return dependency


# The session-or-token callers of the domains' routes, one per scope and direction (reads need no CSRF).
ReadCaller = Annotated[User, Depends(_scoped_reader("read"))]
SubmitCaller = Annotated[User, Depends(_scoped_writer("submit"))]
TeachReadCaller = Annotated[User, Depends(_scoped_reader("teach"))]
TeachWriteCaller = Annotated[User, Depends(_scoped_writer("teach"))]
