"""Every query of the accounts domain."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any, Literal

from sqlalchemy import CursorResult, bindparam, delete, func, select, tuple_, update
from sqlalchemy.orm import Session, joinedload

from app.accounts.models import (
    ApiToken,
    ClientAttempt,
    LoginFailure,
    PasswordReset,
    PremiumCode,
    PremiumGrant,
    RecoveryCode,
    TwoFactorAttempt,
    User,
    UserSession,
)


def get_user(session: Session, user_id: int) -> User | None:
    """A user with their premium grants, in one query (every page asks for its viewer)."""
    return session.get(User, user_id, options=[joinedload(User.premium_grants)])


def get_user_by_email(session: Session, email: str) -> User | None:
    return session.scalars(select(User).where(User.email == email)).first()


def add_user(session: Session, user: User) -> User:
    session.add(user)
    session.flush()
    return user


def add(
    session: Session,
    obj: ApiToken
    | PremiumGrant
    | PremiumCode
    | LoginFailure
    | PasswordReset
    | TwoFactorAttempt
    | ClientAttempt
    | UserSession,
) -> None:
    session.add(obj)
    session.flush()


def list_users(
    session: Session, text: str | None, limit: int = 100, after: str | None = None
) -> Sequence[User]:
    """Users by email (its unique index gives the order), optionally after the email ``after``."""
    stmt = select(User).order_by(User.email).limit(limit)
    if text:
        pattern = "%" + text.lower().replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
        stmt = stmt.where(User.email.like(pattern, escape="\\"))
    if after is not None:
        stmt = stmt.where(User.email > after)
    return session.scalars(stmt).all()


def refresh_grants(session: Session, user: User) -> None:
    """Reload ``user.premium_grants`` after a change (the relationship is view-only)."""
    session.flush()
    session.refresh(user, ["premium_grants"])


def revoke_grants(session: Session, user_id: int, now: datetime) -> int:
    result: CursorResult[Any] = session.execute(  # type: ignore[assignment]
        update(PremiumGrant)
        .where(
            PremiumGrant.user_id == user_id, PremiumGrant.revoked_at.is_(None), PremiumGrant.expires_at > now
        )
        .values(revoked_at=now)
    )
    return result.rowcount


# --- tokens ---------------------------------------------------------------------------------------


_TOKEN_AND_OWNER = (
    select(ApiToken, User)
    .join(User, User.id == ApiToken.user_id)
    .where(ApiToken.token_hash == bindparam("token_hash"))
    .options(joinedload(User.premium_grants))  # in the same query: a row per grant
)  # built once, a module constant (``app.kit.db.prepared`` says why and where)


def token_and_owner(session: Session, token_hash: str) -> tuple[ApiToken, User] | None:
    """A token by its hash and its owner with the owner's premium grants, in one query (every
    API request asks; loading the grants in a second query cost about as much CPU again): a
    row per grant, all of them read."""
    rows = session.execute(_TOKEN_AND_OWNER, {"token_hash": token_hash}).unique().all()
    return (rows[0][0], rows[0][1]) if rows else None


TokenKey = tuple[datetime, int]  # (created_at, id): the token list's order, newest first


def list_tokens(
    session: Session, user_id: int, *, after: TokenKey | None = None, limit: int | None = None
) -> Sequence[ApiToken]:
    """The user's live tokens, newest first; keyset-paged by ``after`` (ix_api_tokens_live)."""
    stmt = select(ApiToken).where(ApiToken.user_id == user_id, ApiToken.revoked_at.is_(None))
    if after is not None:
        stmt = stmt.where(tuple_(ApiToken.created_at, ApiToken.id) < tuple_(*after))
    stmt = stmt.order_by(ApiToken.created_at.desc(), ApiToken.id.desc())
    return session.scalars(stmt.limit(limit) if limit is not None else stmt).all()


def token_key(token: ApiToken) -> TokenKey:
    return (token.created_at, token.id)


def get_token(session: Session, token_id: int) -> ApiToken | None:
    return session.get(ApiToken, token_id)


def revoke_tokens(session: Session, user_id: int, now: datetime) -> int:
    """Revoke every live token of the user (a password change or reset); how many were."""
    result: CursorResult[Any] = session.execute(  # type: ignore[assignment]
        update(ApiToken)
        .where(ApiToken.user_id == user_id, ApiToken.revoked_at.is_(None))
        .values(revoked_at=now)
        .execution_options(synchronize_session=False)
    )
    return result.rowcount


# --- sign-in sessions -----------------------------------------------------------------------------


_SESSION_AND_USER = (
    select(UserSession, User)
    .join(User, User.id == UserSession.user_id)
    .where(UserSession.id_hash == bindparam("id_hash"))
    .options(joinedload(User.premium_grants))
)  # every signed-in page asks: one query by the unique index, the user's grants in it


def session_and_user(session: Session, id_hash: str) -> tuple[UserSession, User] | None:
    """A sign-in session by the hash of its id, with its user and their premium grants."""
    rows = session.execute(_SESSION_AND_USER, {"id_hash": id_hash}).unique().all()
    return (rows[0][0], rows[0][1]) if rows else None


def live_sessions(session: Session, user_id: int, now: datetime, limit: int) -> Sequence[UserSession]:
    """The user's unrevoked, unexpired sessions, newest first (ix_user_sessions_live)."""
    stmt = (
        select(UserSession)
        .where(UserSession.user_id == user_id, UserSession.revoked_at.is_(None), UserSession.expires_at > now)
        .order_by(UserSession.created_at.desc(), UserSession.id.desc())
        .limit(limit)
    )
    return session.scalars(stmt).all()


def get_session(session: Session, session_id: int) -> UserSession | None:
    return session.get(UserSession, session_id)


def end_sessions(session: Session, user_id: int, now: datetime, *, keep_id: int | None = None) -> int:
    """End every live session of the user (but ``keep_id``); how many were ended."""
    stmt = update(UserSession).where(UserSession.user_id == user_id, UserSession.revoked_at.is_(None))
    if keep_id is not None:
        stmt = stmt.where(UserSession.id != keep_id)
    result: CursorResult[Any] = session.execute(  # type: ignore[assignment]
        stmt.values(revoked_at=now).execution_options(synchronize_session=False)
    )
    return result.rowcount


def purge_sessions(session: Session, user_id: int, before: datetime) -> None:
    """Forget the user's sessions that ended (expired or revoked) before ``before``."""
    session.execute(
        delete(UserSession).where(
            UserSession.user_id == user_id,
            (UserSession.expires_at < before) | (UserSession.revoked_at < before),
        )
    )


# --- premium codes --------------------------------------------------------------------------------


def get_code(session: Session, code: str) -> PremiumCode | None:
    return session.scalars(select(PremiumCode).where(PremiumCode.code == code)).first()


def list_codes(session: Session, created_by_id: int | None, limit: int = 100) -> Sequence[PremiumCode]:
    stmt = select(PremiumCode).order_by(PremiumCode.created_at.desc(), PremiumCode.id.desc()).limit(limit)
    if created_by_id is not None:
        stmt = stmt.where(PremiumCode.created_by_id == created_by_id)
    return session.scalars(stmt).all()


def claim_code_use(session: Session, code_id: int) -> bool:
    """Take one use of a code atomically; False when it is used up (concurrent redeemers included)."""
    result: CursorResult[Any] = session.execute(  # type: ignore[assignment]
        update(PremiumCode)
        .where(PremiumCode.id == code_id, PremiumCode.uses < PremiumCode.max_uses)
        .values(uses=PremiumCode.uses + 1)
        .execution_options(synchronize_session=False)
    )
    return result.rowcount == 1


def has_redeemed(session: Session, code_id: int, user_id: int) -> bool:
    stmt = select(PremiumGrant.id).where(PremiumGrant.code_id == code_id, PremiumGrant.user_id == user_id)
    return session.scalars(stmt).first() is not None


# --- log-in throttling ----------------------------------------------------------------------------


def failures_since(
    session: Session,
    since: datetime,
    *,
    email: str | None = None,
    client: str | None = None,
    browser: str | Literal["unknown"] | None = None,
) -> tuple[int, datetime | None]:
    """How many failures match since ``since``, and the oldest of them; ``browser``: a known
    browser's id, "unknown" for those of browsers that were not known, None for any."""
    stmt = select(func.count(LoginFailure.id), func.min(LoginFailure.at)).where(LoginFailure.at >= since)
    if email is not None:
        stmt = stmt.where(LoginFailure.email == email)
    if client is not None:
        stmt = stmt.where(LoginFailure.client == client)
    if browser == "unknown":
        stmt = stmt.where(LoginFailure.browser.is_(None))
    elif browser is not None:
        stmt = stmt.where(LoginFailure.browser == browser)
    count, oldest = session.execute(stmt).one()
    return int(count or 0), oldest


def clear_failures(session: Session, email: str, client: str) -> None:
    """Forget the failed log-ins of ``email`` from ``client`` (after it logged in): the failures from
    elsewhere stay counted, so an account under attack stays guarded after its owner logs in."""
    session.execute(delete(LoginFailure).where(LoginFailure.email == email, LoginFailure.client == client))


def purge_failures(session: Session, before: datetime) -> None:
    session.execute(delete(LoginFailure).where(LoginFailure.at < before))


def client_attempts_since(
    session: Session, action: str, client: str, since: datetime
) -> tuple[int, datetime | None]:
    """A client's attempts of ``action`` since ``since``, and the oldest of them."""
    stmt = select(func.count(ClientAttempt.id), func.min(ClientAttempt.at)).where(
        ClientAttempt.action == action, ClientAttempt.client == client, ClientAttempt.at >= since
    )
    count, oldest = session.execute(stmt).one()
    return int(count or 0), oldest


def delete_attempt(session: Session, attempt_id: int) -> None:
    session.execute(delete(ClientAttempt).where(ClientAttempt.id == attempt_id))


def purge_client_attempts(session: Session, before: datetime) -> None:
    session.execute(delete(ClientAttempt).where(ClientAttempt.at < before))


def resets_since(
    session: Session, since: datetime, *, email: str | None = None, client: str | None = None
) -> int:
    """Password reset requests (known or unknown email) since ``since``, by email or by client."""
    stmt = select(func.count()).select_from(PasswordReset).where(PasswordReset.created_at >= since)
    if email is not None:
        stmt = stmt.where(PasswordReset.email == email)
    if client is not None:
        stmt = stmt.where(PasswordReset.client == client)
    return int(session.scalar(stmt) or 0)


def get_reset_by_hash(session: Session, token_hash: str) -> PasswordReset | None:
    return session.scalars(select(PasswordReset).where(PasswordReset.token_hash == token_hash)).first()


def close_resets(session: Session, user_id: int, now: datetime) -> None:
    """Every unused reset link of the user stops working."""
    session.execute(
        update(PasswordReset)
        .where(PasswordReset.user_id == user_id, PasswordReset.used_at.is_(None))
        .values(used_at=now)
    )


def purge_resets(session: Session, before: datetime) -> None:
    session.execute(delete(PasswordReset).where(PasswordReset.expires_at < before))


# --- two-factor sign-in ---------------------------------------------------------------------------


def lock_user(session: Session, user_id: int) -> None:
    """Hold the user's row until the transaction ends (PostgreSQL; SQLite has one writer anyway)."""
    session.execute(select(User.id).where(User.id == user_id).with_for_update())


def attempts_since(session: Session, user_id: int, since: datetime) -> tuple[int, datetime | None]:
    """How many second-factor attempts the user made since ``since``, and the oldest of them."""
    stmt = select(func.count(TwoFactorAttempt.id), func.min(TwoFactorAttempt.at)).where(
        TwoFactorAttempt.user_id == user_id, TwoFactorAttempt.at >= since
    )
    count, oldest = session.execute(stmt).one()
    return int(count or 0), oldest


def clear_attempts(session: Session, user_id: int) -> None:
    session.execute(delete(TwoFactorAttempt).where(TwoFactorAttempt.user_id == user_id))


def purge_attempts(session: Session, before: datetime) -> None:
    session.execute(delete(TwoFactorAttempt).where(TwoFactorAttempt.at < before))


def advance_totp_step(session: Session, user_id: int, step: int) -> bool:
    """Record ``step`` as the last accepted one, only if it is newer: False when another request
    already accepted this step or a later one (the same code twice, even at the same moment)."""
    result: CursorResult[Any] = session.execute(  # type: ignore[assignment]
        update(User)
        .where(User.id == user_id, (User.totp_last_step.is_(None)) | (User.totp_last_step < step))
        .values(totp_last_step=step)
        .execution_options(synchronize_session=False)
    )
    return result.rowcount == 1


def use_recovery_code(session: Session, user_id: int, code_hash: str, now: datetime) -> bool:
    """Mark an unused recovery code used; False if there is none (wrong, or used already)."""
    result: CursorResult[Any] = session.execute(  # type: ignore[assignment]
        update(RecoveryCode)
        .where(
            RecoveryCode.user_id == user_id,
            RecoveryCode.code_hash == code_hash,
            RecoveryCode.used_at.is_(None),
        )
        .values(used_at=now)
        .execution_options(synchronize_session=False)
    )
    return result.rowcount == 1


def replace_recovery_codes(session: Session, user_id: int, hashes: Sequence[str], now: datetime) -> None:
    delete_recovery_codes(session, user_id)
    session.add_all(RecoveryCode(user_id=user_id, code_hash=h, created_at=now) for h in hashes)
    session.flush()


def delete_recovery_codes(session: Session, user_id: int) -> None:
    session.execute(delete(RecoveryCode).where(RecoveryCode.user_id == user_id))


def recovery_codes_left(session: Session, user_id: int) -> int:
    stmt = select(func.count(RecoveryCode.id)).where(
        RecoveryCode.user_id == user_id, RecoveryCode.used_at.is_(None)
    )
    return int(session.scalar(stmt) or 0)
