"""Password hashing (argon2id) and CSRF tokens kept in the signed session cookie."""

from __future__ import annotations

import hmac
import secrets
from functools import lru_cache
from typing import Any

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError, VerifyMismatchError

_hasher = PasswordHasher()

CSRF_SESSION_KEY = "csrf"
CSRF_FORM_FIELD = "csrf_token"
CSRF_HEADER = "X-CSRF-Token"


def hash_password(password: str) -> str:
    return _hasher.hash(password)


@lru_cache(maxsize=1)
def _no_account_hash() -> str:
    """A hash made with the same parameters as every account's, of a password nobody knows."""
    return _hasher.hash(secrets.token_urlsafe(32))


def prepare_password_checks() -> None:
    """Make the stand-in hash now (at start), so not even the first unknown email costs more."""
    _no_account_hash()


def verify_password(password_hash: str | None, password: str) -> bool:
    """Whether ``password`` matches ``password_hash``. Without a hash (no such account) the password
    is checked against a hash nobody's password matches, so an unknown email costs the same argon2
    work as a known one and the answer's timing does not tell whether an account exists."""
    try:
        return _hasher.verify(password_hash or _no_account_hash(), password) and password_hash is not None
    except (VerifyMismatchError, VerificationError, InvalidHashError):
        return False


def needs_rehash(password_hash: str) -> bool:
    return _hasher.check_needs_rehash(password_hash)


def csrf_token(session: dict[str, Any]) -> str:
    """The session's CSRF token, created on first use."""
    token = session.get(CSRF_SESSION_KEY)
    if not isinstance(token, str) or not token:
        token = secrets.token_urlsafe(32)
        session[CSRF_SESSION_KEY] = token
    return token


def csrf_matches(session: dict[str, Any], submitted: str | None) -> bool:
    expected = session.get(CSRF_SESSION_KEY)
    if not isinstance(expected, str) or not expected or not submitted:
        return False
    return hmac.compare_digest(expected.encode(), submitted.encode())
