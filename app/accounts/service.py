"""Accounts: sign-up, log-in (throttled), users and roles.

API tokens are in ``accounts.tokens``; the premium entitlement and codes in ``accounts.premium``.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from app.accounts import repository
from app.accounts.models import ROLES, ClientAttempt, LoginFailure, User
from app.kit.db import Database
from app.kit.errors import Forbidden, FormErrors, InvalidInput, NotFound, TooManyRequests
from app.kit.paging import Page, decode_cursor, page_of
from app.kit.security import hash_password, needs_rehash, verify_password
from app.kit.settings import Settings
from runner.format.fields import forbidden_character

if TYPE_CHECKING:
    from app.accounts.browsers import KnownBrowser

EMAIL_RE = re.compile(r"^[^@\s\x00-\x1f]{1,64}@[^@\s\x00-\x1f]+\.[^@\s.\x00-\x1f]{2,}$")
MIN_PASSWORD = 8
MAX_PASSWORD = 1024
EMAIL_TAKEN = "An account with this email already exists. Log in instead."


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
    if not is_plain_text(password):
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
    elif (
        len(email) > 254
        or not EMAIL_RE.match(email)
        or not is_plain_text(email)
        or forbidden_character(email) is not None  # one line, no bidi or invisible characters
    ):
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


def is_plain_text(text: str) -> bool:
    """Encodable as UTF-8 and free of NUL: safe to store in any database and to show."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return "\x00" not in text


# --- log-in and throttling ------------------------------------------------------------------------
#
# Failed log-ins are counted per (email, client) and per client, so a guesser is slowed where it
# stands and nobody elsewhere can lock the owner out. Guesses at one account from many addresses
# are bounded per email too, but only for browsers that never logged in to that account: the
# owner's browsers (``accounts.browsers``) keep their own per-client allowance (docs/security.md,
# "Rate limits per real client").

FAILED_LOGINS = "Too many failed log-ins. Wait about {wait} and try again."
ACCOUNT_GUARDED = (
    "This account had many failed log-ins from elsewhere, so it only accepts browsers that logged in "
    "to it before for a while. Wait about {wait}, log in from a browser you used before, or reset "
    "your password."
)


def _wait_words(seconds: float) -> str:
    minutes = max(1, round(seconds / 60))
    return f"{minutes} minute{'s' if minutes != 1 else ''}"


def check_login_allowed(
    session: Session, settings: Settings, email: str, client: str, browser: str | None, now: datetime
) -> None:
    """Refuse (429) once this email from this client, this client, or this email from this known
    ``browser`` (its id) — from any browser not known to the account when None — has too many
    recent failed log-ins."""
    window = timedelta(seconds=settings.login_window_s)
    since = now - window
    email, client = normalise_email(email)[:254], client[:100]
    checks = [
        (repository.failures_since(session, since, email=email, client=client),
         settings.login_max_failures_per_email, FAILED_LOGINS),
        (repository.failures_since(session, since, client=client),
         settings.login_max_failures_per_client, FAILED_LOGINS),
    ]  # fmt: skip
    if browser is None:
        checks.append(
            (repository.failures_since(session, since, email=email, browser="unknown"),
             settings.login_max_failures_per_account, ACCOUNT_GUARDED)
        )  # fmt: skip
    else:  # a copied cookie, used from many addresses, still gets a handful of guesses
        checks.append(
            (repository.failures_since(session, since, email=email, browser=browser),
             settings.login_max_failures_per_email, FAILED_LOGINS)
        )  # fmt: skip
    for (count, oldest), limit, message in checks:
        if count >= limit:
            wait = max(1.0, ((oldest or now) + window - now).total_seconds())
            raise TooManyRequests(message.format(wait=_wait_words(wait)), retry_after_s=wait)


def record_login_failure(db: Database, email: str, client: str, browser: str | None, now: datetime) -> None:
    """Remember a failed log-in in its own transaction: the request that failed will not commit."""
    with db.transaction() as session:
        repository.purge_failures(session, now - timedelta(days=1))
        address = normalise_email(email)[:254]
        repository.add(session, LoginFailure(email=address, client=client[:100], at=now, browser=browser))


def authenticate(
    session: Session,
    user: User | None,
    password: str,
    client: str,
    second_factor: Callable[[User], None] | None = None,
) -> User:
    """``user`` if ``password`` is theirs. One argon2 verification whether or not the account
    exists (``verify_password`` without a hash), so timing does not tell."""
    if not verify_password(user.password_hash if user is not None else None, password) or user is None:
        raise FormErrors({"form": "Email or password is incorrect."})
    if second_factor is not None:  # before this session writes: the check keeps its own records
        second_factor(user)
    if needs_rehash(user.password_hash):
        user.password_hash = hash_password(password)
        session.flush()
    repository.clear_failures(session, user.email, client[:100])
    return user


def log_in(
    session: Session,
    db: Database,
    settings: Settings,
    email: str,
    password: str,
    client: str,
    now: datetime,
    second_factor: Callable[[User], None] | None = None,
    browser: KnownBrowser | None = None,
) -> User:
    """Throttled authentication shared by the log-in page and the token endpoint. The token
    endpoint's ``second_factor`` (``two_factor.token_check``) runs once the password is right.
    ``browser``: the one this attempt comes from, if it has logged in before
    (``accounts.browsers``; API clients have none)."""
    user = repository.get_user_by_email(session, normalise_email(email))
    known = browser.id if browser is not None and user is not None and user.id in browser.users else None
    check_login_allowed(session, settings, email, client, known, now)
    try:
        return authenticate(session, user, password, client, second_factor)
    except FormErrors:
        record_login_failure(db, email, client, known, now)
        raise


# --- sign-up limit ---------------------------------------------------------------------------------


def check_signup_allowed(db: Database, settings: Settings, client: str, now: datetime) -> None:
    """Count this sign-up attempt of ``client`` and refuse it (429) beyond ``signup_per_client_hour``:
    a sign-up tells whether an email has an account, and mass sign-ups are spam.

    The attempt is committed first, in its own transaction, then counted with everyone else's, so
    concurrent attempts see each other (a burst cannot slip past the limit; at worst the last
    allowed one is refused too); a refused attempt is taken back, so waiting is enough."""
    hour = timedelta(hours=1)
    attempt = ClientAttempt(action="signup", client=client[:100], at=now)
    with db.transaction() as session:
        repository.purge_client_attempts(session, now - hour)
        repository.add(session, attempt)
        attempt_id = attempt.id
    with db.transaction() as session:
        count, oldest = repository.client_attempts_since(session, "signup", client[:100], now - hour)
        if count > settings.signup_per_client_hour:
            repository.delete_attempt(session, attempt_id)
    if count > settings.signup_per_client_hour:
        wait = max(1.0, ((oldest or now) + hour - now).total_seconds())
        raise TooManyRequests(
            f"Too many sign-ups from your network. Wait about {_wait_words(wait)} and try again.",
            retry_after_s=wait,
        )


def end_access(session: Session, user: User, now: datetime) -> None:
    """What a password change or reset does besides the password: every session of the account
    ends (its copied cookies with them), every API token is revoked, and a two-factor sign-in
    pending since before is void (``session_epoch``, checked by ``two_factor_login``)."""
    repository.end_sessions(session, user.id, now)
    repository.revoke_tokens(session, user.id, now)
    user.session_epoch = (user.session_epoch or 0) + 1


def change_password(session: Session, user: User, current: str, new: str, now: datetime) -> None:
    """Set a new password (the current one must be given); ends every session and revokes every
    token (:func:`end_access`): the page then signs this browser in again with a new session."""
    errors: dict[str, str] = {}
    if not verify_password(user.password_hash, current):
        errors["current_password"] = "Your current password is not correct."
    problem = password_problem(new)
    if problem:
        errors["new_password"] = problem
    if errors:
        raise FormErrors(errors)
    user.password_hash = hash_password(new)
    end_access(session, user, now)
    session.flush()


def get_user(session: Session, user_id: int) -> User | None:
    return repository.get_user(session, user_id)


def get_user_by_email(session: Session, email: str) -> User:
    user = repository.get_user_by_email(session, normalise_email(email))
    if user is None:
        raise NotFound(f"There is no user with email {normalise_email(email)!r}.")
    return user


ADMIN_PAGE = 100  # users per page of the admin list


def list_users(session: Session, text: str | None, after: str | None = None) -> Page[User]:
    """A page of users whose email contains ``text``, by email, after the cursor ``after``."""
    key = decode_cursor(after, (str,)) if after else None
    rows = repository.list_users(
        session, (text or "").strip().lower() or None, ADMIN_PAGE + 1, key[0] if key else None
    )
    return page_of(rows, ADMIN_PAGE, lambda u: (u.email,))


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
