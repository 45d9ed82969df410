"""Accounts: sign-up, log-in (throttled), roles, API tokens and the premium entitlement."""

from __future__ import annotations

import hashlib
import re
import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from app.accounts import repository
from app.accounts.models import ROLES, STAFF_ROLES, ApiToken, LoginFailure, PremiumCode, PremiumGrant, User
from app.kit.db import Database
from app.kit.errors import Forbidden, FormErrors, InvalidInput, NotFound, TooManyRequests
from app.kit.security import hash_password, needs_rehash, verify_password
from app.kit.settings import Settings

EMAIL_RE = re.compile(r"^[^@\s\x00-\x1f]{1,64}@[^@\s\x00-\x1f]+\.[^@\s.\x00-\x1f]{2,}$")
MIN_PASSWORD = 8
MAX_PASSWORD = 1024
TOKEN_PREFIX = "td_"
MAX_PREMIUM_DAYS = 3660
MAX_CODE_USES = 10_000
CODE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"  # no 0/O, 1/I
EMAIL_TAKEN = "An account with this email already exists. Log in instead."
CODE_RE = re.compile(r"^[A-Z2-9]{4}-[A-Z2-9]{4}-[A-Z2-9]{4}$")


def normalise_email(email: str) -> str:
    return email.strip().lower()


COMMON_PASSWORDS = frozenset(
    {"password", "12345678", "123456789", "1234567890", "qwertyuiop", "password1", "iloveyou", "11111111",
     "abcdefgh", "qwerty123", "letmein1", "00000000", "87654321", "passw0rd", "torchdrill"}
)  # fmt: skip


def password_problem(password: str) -> str | None:
    """Why ``password`` is missing or too weak, or None."""
    if not password:
        return "Choose a password."
    if len(password) < MIN_PASSWORD:
        return f"Use at least {MIN_PASSWORD} characters."
    if len(password) > MAX_PASSWORD:
        return f"Use at most {MAX_PASSWORD} characters."
    if not _encodable(password):
        return "The password contains characters that cannot be used."
    if password.lower() in COMMON_PASSWORDS or len(set(password)) < 3:
        return "This password is too easy to guess. Try a few unrelated words."
    return None


def sign_up(session: Session, email: str, password: str, role: str = "student") -> User:
    """Create an account, or raise :class:`FormErrors` naming each bad field."""
    email = normalise_email(email)
    errors: dict[str, str] = {}
    if not email:
        errors["email"] = "Enter your email address."
    elif len(email) > 254 or not EMAIL_RE.match(email) or not _encodable(email):
        errors["email"] = "Enter a valid email address, like ada@example.com."
    problem = password_problem(password)
    if problem:
        errors["password"] = problem
    if role not in ROLES:
        errors["role"] = f"Role must be one of {', '.join(ROLES)}."
    if "email" not in errors and repository.get_user_by_email(session, email) is not None:
        errors["email"] = EMAIL_TAKEN
    if errors:
        raise FormErrors(errors)
    try:
        with session.begin_nested():
            return repository.add_user(
                session, User(email=email, password_hash=hash_password(password), role=role)
            )
    except IntegrityError:  # a concurrent sign-up with the same email won the race
        raise FormErrors({"email": EMAIL_TAKEN}) from None


def _encodable(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return "\x00" not in text


# --- log-in and throttling ------------------------------------------------------------------------


def check_login_allowed(session: Session, settings: Settings, email: str, client: str, now: datetime) -> None:
    """Refuse (429) once an email or a client address has too many recent failed log-ins."""
    window = timedelta(seconds=settings.login_window_s)
    since = now - window
    email = normalise_email(email)[:254]
    for count, oldest, limit in (
        (*repository.failures_since(session, since, email=email), settings.login_max_failures_per_email),
        (
            *repository.failures_since(session, since, client=client[:100]),
            settings.login_max_failures_per_client,
        ),
    ):
        if count >= limit:
            wait = ((oldest or now) + window - now).total_seconds()
            minutes = max(1, round(wait / 60))
            plural = "s" if minutes != 1 else ""
            raise TooManyRequests(
                f"Too many failed log-ins. Wait about {minutes} minute{plural} and try again.",
                retry_after_s=max(1.0, wait),
            )


def record_login_failure(db: Database, email: str, client: str, now: datetime) -> None:
    """Remember a failed log-in in its own transaction: the request that failed will not commit."""
    with db.transaction() as session:
        repository.purge_failures(session, now - timedelta(days=1))
        repository.add(session, LoginFailure(email=normalise_email(email)[:254], client=client[:100], at=now))


def authenticate(session: Session, email: str, password: str) -> User:
    user = repository.get_user_by_email(session, normalise_email(email))
    if user is None or not verify_password(user.password_hash, password):
        raise FormErrors({"form": "Email or password is incorrect."})
    if needs_rehash(user.password_hash):
        user.password_hash = hash_password(password)
        session.flush()
    repository.clear_failures(session, user.email)
    return user


def log_in(
    session: Session, db: Database, settings: Settings, email: str, password: str, client: str, now: datetime
) -> User:
    """Throttled authentication shared by the log-in page and the token endpoint."""
    check_login_allowed(session, settings, email, client, now)
    try:
        return authenticate(session, email, password)
    except FormErrors:
        record_login_failure(db, email, client, now)
        raise


def change_password(session: Session, user: User, current: str, new: str) -> None:
    errors: dict[str, str] = {}
    if not verify_password(user.password_hash, current):
        errors["current_password"] = "Your current password is not correct."
    problem = password_problem(new)
    if problem:
        errors["new_password"] = problem
    if errors:
        raise FormErrors(errors)
    user.password_hash = hash_password(new)
    session.flush()


def get_user(session: Session, user_id: int) -> User | None:
    return repository.get_user(session, user_id)


def get_user_by_email(session: Session, email: str) -> User:
    user = repository.get_user_by_email(session, normalise_email(email))
    if user is None:
        raise NotFound(f"There is no user with email {normalise_email(email)!r}.")
    return user


def list_users(session: Session, text: str | None) -> list[User]:
    return list(repository.list_users(session, (text or "").strip().lower() or None))


def set_role(session: Session, actor: User, user: User, role: str) -> None:
    require_role(actor, "admin")
    if role not in ROLES:
        raise InvalidInput(f"Role must be one of {', '.join(ROLES)}.")
    if user.id == actor.id and role != "admin":
        raise InvalidInput("You cannot remove your own admin role; ask another admin.")
    user.role = role
    session.flush()


def require_role(user: User, *roles: str) -> None:
    if user.role not in roles:
        raise Forbidden(f"This needs the {' or '.join(roles)} role.")


# --- API tokens -----------------------------------------------------------------------------------


def _token_hash(token: str) -> str:
    # Tokens are 256-bit random strings, so a fast hash is enough (no password-style stretching).
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


def create_token(session: Session, user: User, name: str, now: datetime) -> tuple[ApiToken, str]:
    """A new personal access token; the plain token is returned once and never stored."""
    name = " ".join(name.split())[:100] or "token"
    if not _encodable(name):
        raise InvalidInput("The token name contains characters that cannot be used.")
    plain = TOKEN_PREFIX + secrets.token_urlsafe(32)
    token = ApiToken(
        user_id=user.id, name=name, token_hash=_token_hash(plain), prefix=plain[:10], created_at=now
    )
    repository.add(session, token)
    return token, plain


def user_for_token(session: Session, plain: str, now: datetime) -> User | None:
    """The owner of a live token (and note its use, at most once a minute), or None."""
    if not plain.startswith(TOKEN_PREFIX) or len(plain) > 200:
        return None
    token = repository.get_token_by_hash(session, _token_hash(plain))
    if token is None or token.revoked_at is not None:
        return None
    if token.last_used_at is None or now - token.last_used_at > timedelta(minutes=1):
        token.last_used_at = now
        session.flush()
    return repository.get_user(session, token.user_id)


def list_tokens(session: Session, user: User) -> list[ApiToken]:
    return list(repository.list_tokens(session, user.id))


def revoke_token(session: Session, user: User, token_id: int, now: datetime) -> None:
    token = repository.get_token(session, token_id)
    if token is None or token.user_id != user.id or token.revoked_at is not None:
        raise NotFound(f"There is no token #{token_id}.")
    token.revoked_at = now
    session.flush()


# --- premium --------------------------------------------------------------------------------------


def is_premium(user: User | None, now: datetime) -> bool:
    """Whether ``user`` has Premium at ``now``. The only entitlement rule in the app.

    Staff (instructors author problems, admins manage them) always do; learners do while one of
    their grants is active. Checked on every request, so an expiry needs no restart.
    """
    if user is None:
        return False
    return user.role in STAFF_ROLES or any(g.active_at(now) for g in user.premium_grants)


def premium_until(user: User, now: datetime) -> datetime | None:
    """The end of the user's current stretch of premium grants (None without active premium)."""
    until: datetime | None = None
    for grant in sorted(user.premium_grants, key=lambda g: g.starts_at):
        if grant.revoked_at is not None:
            continue
        current = until or now
        if grant.starts_at <= current and grant.expires_at > current:
            until = grant.expires_at
    return until


@dataclass(frozen=True)
class PremiumStatus:
    active: bool
    by_role: bool
    expires_at: datetime | None


def premium_status(user: User, now: datetime) -> PremiumStatus:
    return PremiumStatus(
        active=is_premium(user, now), by_role=user.role in STAFF_ROLES, expires_at=premium_until(user, now)
    )


def _check_days(days: int) -> None:
    if not 1 <= days <= MAX_PREMIUM_DAYS:
        raise InvalidInput(f"Days must be between 1 and {MAX_PREMIUM_DAYS}.")


def grant_premium(
    session: Session, user: User, days: int, now: datetime, granted_by: User | None = None
) -> PremiumGrant:
    """Add ``days`` of Premium, after any premium the user already has."""
    _check_days(days)
    start = premium_until(user, now) or now
    grant = PremiumGrant(
        user_id=user.id,
        starts_at=now,
        expires_at=start + timedelta(days=days),
        source="admin",
        granted_by_id=granted_by.id if granted_by else None,
        created_at=now,
    )
    repository.add(session, grant)
    repository.refresh_grants(session, user)
    return grant


def revoke_premium(session: Session, user: User, now: datetime) -> int:
    """End every current and future grant of ``user`` now; returns how many were ended."""
    count = repository.revoke_grants(session, user.id, now)
    repository.refresh_grants(session, user)
    return count


def _new_code() -> str:
    raw = "".join(secrets.choice(CODE_ALPHABET) for _ in range(12))
    return f"{raw[:4]}-{raw[4:8]}-{raw[8:]}"


def create_code(
    session: Session, creator: User, uses: int, days: int, label: str, now: datetime
) -> PremiumCode:
    require_role(creator, *STAFF_ROLES)
    errors: dict[str, str] = {}
    if not 1 <= uses <= MAX_CODE_USES:
        errors["uses"] = f"Uses must be between 1 and {MAX_CODE_USES}."
    if not 1 <= days <= MAX_PREMIUM_DAYS:
        errors["days"] = f"Days must be between 1 and {MAX_PREMIUM_DAYS}."
    label = " ".join(label.split())
    if len(label) > 200 or not _encodable(label):
        errors["label"] = "Use at most 200 plain characters for the class name."
    if errors:
        raise FormErrors(errors)
    code = PremiumCode(code=_new_code(), label=label, max_uses=uses, uses=0, days=days,
                       created_by_id=creator.id, created_at=now)  # fmt: skip
    repository.add(session, code)
    return code


def list_codes(session: Session, viewer: User) -> list[PremiumCode]:
    """Admins see every code, instructors their own."""
    require_role(viewer, *STAFF_ROLES)
    return list(repository.list_codes(session, None if viewer.is_admin else viewer.id))


def redeem_code(session: Session, user: User, raw_code: str, now: datetime) -> PremiumGrant:
    code_text = raw_code.strip().upper()
    if not CODE_RE.match(code_text):
        raise FormErrors({"code": "Enter a code like ABCD-EFGH-JKLM."})
    code = repository.get_code(session, code_text)
    if code is None:
        raise FormErrors({"code": "This code does not exist. Check it with your instructor."})
    if repository.has_redeemed(session, code.id, user.id):
        raise FormErrors({"code": "You have already redeemed this code."})
    if not repository.claim_code_use(session, code.id):
        raise FormErrors({"code": "This code has been used up. Ask your instructor for a new one."})
    start = premium_until(user, now) or now
    grant = PremiumGrant(user_id=user.id, starts_at=now, expires_at=start + timedelta(days=code.days),
                         source="code", code_id=code.id, created_at=now)  # fmt: skip
    try:
        with session.begin_nested():
            repository.add(session, grant)
    except IntegrityError:  # the same learner redeemed it concurrently
        raise FormErrors({"code": "You have already redeemed this code."}) from None
    repository.refresh_grants(session, user)
    return grant
