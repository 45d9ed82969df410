"""``/api/v1/auth``: register, exchange a password for a token, list and revoke tokens, who am I."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Form, Path, Request, Response
from fastapi.security import OAuth2PasswordRequestForm

from app.accounts import premium, tokens, two_factor
from app.accounts import service as accounts
from app.accounts.deps import client_address, needs
from app.accounts.models import ApiToken, User
from app.api_v1.deps import ApiUser
from app.api_v1.schemas import RegisterIn, TokenInfo, TokenList, TokenOut, UserOut, error_responses
from app.kit.db import utcnow
from app.kit.errors import Conflict, FormErrors, InvalidInput, LoginRequired
from app.kit.paging import next_url
from app.kit.web import PageAfter, PageLimit, SessionDep, SettingsDep, get_database

router = APIRouter(prefix="/auth", tags=["auth"])

OTP_HELP = "With two-factor sign-in on: the 6-digit code from the authenticator app, or a recovery code"


class InvalidCredentials(LoginRequired):
    code = "invalid_credentials"
    default_detail = "Email or password is incorrect."


class EmailTaken(Conflict):
    code = "email_taken"


def user_out(user: User) -> UserOut:
    status = premium.premium_status(user, utcnow())
    return UserOut(id=user.id, email=user.email, role=user.role,  # type: ignore[arg-type]
                   premium=status.active, premium_expires_at=status.expires_at)  # fmt: skip


@router.post("/register", status_code=201, response_model=UserOut, responses=error_responses(409, 422, 429))
def register(request: Request, body: RegisterIn, session: SessionDep, settings: SettingsDep) -> UserOut:
    """Create a student account. Log in with `POST /api/v1/auth/token` afterwards.

    Sign-ups are limited per client address an hour (429 with Retry-After), like the page's.
    """
    accounts.check_signup_allowed(get_database(request), settings, client_address(request), utcnow())
    try:
        user = accounts.sign_up(session, body.email, body.password)
    except FormErrors as exc:
        if exc.errors.get("email") == accounts.EMAIL_TAKEN:
            raise EmailTaken(accounts.EMAIL_TAKEN) from None
        raise InvalidInput("; ".join(f"{k}: {v}" for k, v in exc.errors.items())) from None
    return user_out(user)


def token_info(token: ApiToken) -> TokenInfo:
    return TokenInfo(
        id=token.id,
        name=token.name,
        prefix=token.prefix,
        scopes=tokens.ordered(token.scope_set),  # type: ignore[arg-type]  # the three scopes only
        created_at=token.created_at,
        last_used_at=token.last_used_at,
        expires_at=token.expires_at,
    )


@router.post("/token", response_model=TokenOut, responses=error_responses(401, 403, 422, 429))
def token(
    request: Request,
    form: Annotated[OAuth2PasswordRequestForm, Depends()],
    session: SessionDep,
    settings: SettingsDep,
    name: Annotated[str, Form(max_length=200, description="A label to recognise the token by")] = "api",
    expires_in_days: Annotated[
        str,
        Form(
            max_length=20,
            description=f"Days until it expires (1-{tokens.MAX_DAYS}) or `never`; "
            f"default {tokens.DEFAULT_DAYS}",
        ),
    ] = "",
    otp: Annotated[str, Form(max_length=100, description=OTP_HELP)] = "",
) -> TokenOut:
    """OAuth2 password flow: `username` is the email. Creates a personal access token, shown once.

    `scope` (space-separated): `read`, `submit`, `teach` (instructors and admins); default: all
    the account's role can use; an unknown scope, `teach` for a student or a bad expiry is a 422.
    Failed attempts are throttled per email and client address, per client address, and per email
    from anywhere (429 with Retry-After; docs/security.md).
    An account with two-factor sign-in on also needs `otp` (401 `otp_required` without it,
    `invalid_otp` when wrong; a few wrong codes, then 429). Where the site requires two-factor
    sign-in of staff, an instructor or admin without it gets 403 `two_factor_required`.
    """
    db, now = get_database(request), utcnow()
    expires_at = tokens.expiry_after(tokens.parse_days(expires_in_days), now)  # 422 before the password
    try:
        user = accounts.log_in(
            session, db, settings, form.username, form.password, client_address(request), now,
            two_factor.token_check(session, db, settings, otp, now),
        )  # fmt: skip
    except FormErrors:
        raise InvalidCredentials() from None
    row, plain = tokens.create_token(session, user, name, now, scopes=form.scopes, expires_at=expires_at)
    info = token_info(row)
    return TokenOut(
        access_token=plain,
        id=info.id,
        name=info.name,
        scope=" ".join(info.scopes),
        scopes=info.scopes,
        expires_at=info.expires_at,
    )


@router.get(
    "/tokens",
    response_model=TokenList,
    responses=error_responses(401, 403, 422, 429),
    dependencies=[needs("read")],
)
def list_tokens(
    user: ApiUser,
    session: SessionDep,
    settings: SettingsDep,
    limit: PageLimit = None,
    after: PageAfter = None,
) -> TokenList:
    """The caller's unrevoked tokens (expired ones too, with their `expires_at`), newest first
    (never the tokens themselves: only their first characters); follow `next` for older ones."""
    size = min(limit or settings.api_page_size, 100)
    page = tokens.page_of_tokens(session, user, after, size)
    return TokenList(
        items=[token_info(t) for t in page.items],
        next=next_url("/api/v1/auth/tokens", {"limit": size}, page.cursor),
    )


@router.delete(
    "/tokens/{token_id}",
    status_code=204,
    responses=error_responses(401, 403, 404, 429),
    dependencies=[needs("read")],
)
def revoke_token(
    token_id: Annotated[int, Path(ge=1, le=2**31 - 1)], user: ApiUser, session: SessionDep
) -> Response:
    """Revoke one of the caller's tokens (it stops working at once); anybody else's is a 404.

    Needs `read` only: revoking takes power away, never gives any."""
    tokens.revoke_token(session, user, token_id, utcnow())
    return Response(status_code=204)


@router.get(
    "/me", response_model=UserOut, responses=error_responses(401, 403, 429), dependencies=[needs("read")]
)
def me(user: ApiUser) -> UserOut:
    """The token's owner and their premium status."""
    return user_out(user)
