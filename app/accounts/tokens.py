"""API tokens: personal access tokens for scripts and the CLI (only a hash is stored).

A token has a name, scopes (what it may do: ``read``, ``submit``, ``teach``; enforced on every
``/api/v1`` route by ``accounts.deps``), an optional expiry, and its created and last-used times
(last-used moves at most once a minute: a token used all day costs one write a minute, not one a
request). Revoked and expired tokens answer 401; a password change or reset revokes them all.
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Iterable
from datetime import datetime, timedelta

from sqlalchemy.orm import Session

from app.accounts import repository
from app.accounts.models import ApiToken, User
from app.accounts.service import is_plain_text
from app.kit.errors import InvalidInput, NotFound
from app.kit.fields import check_one_line
from app.kit.paging import Page, decode_cursor, page_of

TOKEN_PREFIX = "td_"
SCOPES = ("read", "submit", "teach")  # in this order wherever they are shown
SCOPE_MEANINGS = {
    "read": "read problems, tracks, hints, your submissions, courses you are in, your account",
    "submit": "submit and run code, reveal hints, join a course",
    "teach": "instructor work: authoring, course management, gradebooks, regrades",
}
STAFF_SCOPES = frozenset({"teach"})  # only instructors and admins may hold these
MAX_DAYS = 3650
DEFAULT_DAYS = 90  # the CLI's and the account page's default life of a new token
SEEN_EVERY = timedelta(minutes=1)


def _token_hash(token: str) -> str:
    # Tokens are 256-bit random strings, so a fast hash is enough (no password-style stretching).
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


def default_scopes(user: User) -> frozenset[str]:
    """Every scope the user's role can use: ``read submit``, plus ``teach`` for staff."""
    return frozenset(SCOPES) if user.is_staff else frozenset(SCOPES) - STAFF_SCOPES


def parse_scopes(user: User, requested: str | Iterable[str] | None) -> frozenset[str]:
    """The scopes asked for (space- or comma-separated text, or a list of such); the role's
    default when none are given. 422 for an unknown scope, or ``teach`` asked for by a student."""
    items = [requested] if isinstance(requested, str) else list(requested or [])
    words = [word for item in items for word in item.replace(",", " ").split()]
    if not words:
        return default_scopes(user)
    unknown = sorted({w for w in words if w not in SCOPES})
    if unknown:
        raise InvalidInput(
            f"Unknown scope {', '.join(repr(w[:20]) for w in unknown[:3])}: use {', '.join(SCOPES)}."
        )
    scopes = frozenset(words)
    if scopes & STAFF_SCOPES and not user.is_staff:
        raise InvalidInput("The teach scope is for instructors and admins.")
    return scopes


def expiry_after(days: int | None, now: datetime) -> datetime | None:
    """When a token made now for ``days`` days expires (None: never); 422 outside 1..3650."""
    if days is None:
        return None
    if not 1 <= days <= MAX_DAYS:
        raise InvalidInput(f"A token lives from 1 to {MAX_DAYS} days (or never expires).")
    return now + timedelta(days=days)


def parse_days(text: str | None, default: int | None = DEFAULT_DAYS) -> int | None:
    """``"90"`` -> 90, ``"never"`` -> None, empty -> ``default``; 422 for anything else."""
    text = (text or "").strip().lower()
    if not text:
        return default
    if text == "never":
        return None
    if not text.isdigit() or len(text) > 5:
        raise InvalidInput(f"Give the token's life in days (1 to {MAX_DAYS}) or 'never'.")
    return int(text)


def ordered(scopes: Iterable[str]) -> list[str]:
    chosen = set(scopes)
    return [s for s in SCOPES if s in chosen]


def create_token(
    session: Session,
    user: User,
    name: str,
    now: datetime,
    *,
    scopes: Iterable[str] | None = None,
    expires_at: datetime | None = None,
) -> tuple[ApiToken, str]:
    """A new personal access token; the plain token is returned once and never stored.

    ``scopes`` default to everything the user's role can use (:func:`default_scopes`)."""
    if not is_plain_text(name):
        raise InvalidInput("The token name contains characters that cannot be used.")
    name = " ".join(check_one_line(name, "The token name").split())[:100] or "token"
    granted = parse_scopes(user, list(scopes) if scopes is not None else None)
    if expires_at is not None and expires_at <= now:
        raise InvalidInput("A token must expire in the future.")
    plain = TOKEN_PREFIX + secrets.token_urlsafe(32)
    token = ApiToken(
        user_id=user.id,
        name=name,
        token_hash=_token_hash(plain),
        prefix=plain[:10],
        created_at=now,
        scopes=" ".join(ordered(granted)),
        expires_at=expires_at,
    )
    repository.add(session, token)
    return token, plain


def owner_and_scopes(session: Session, plain: str, now: datetime) -> tuple[User, frozenset[str]] | None:
    """The owner of a live token and its scopes (noting its use, at most once a minute), or None
    for an unknown, revoked or expired one."""
    if not plain.startswith(TOKEN_PREFIX) or len(plain) > 200:
        return None
    found = repository.token_and_owner(session, _token_hash(plain))
    if found is None or not found[0].live_at(now):
        return None
    token, user = found
    if token.last_used_at is None or now - token.last_used_at >= SEEN_EVERY:
        token.last_used_at = now
        session.flush()
    return user, token.scope_set


def page_of_tokens(session: Session, user: User, after: str | None, limit: int) -> Page[ApiToken]:
    """One page of the user's unrevoked tokens (expired ones too, marked by their expiry),
    newest first, after the cursor ``after``."""
    key = decode_cursor(after, (datetime, int)) if after else None
    rows = repository.list_tokens(session, user.id, after=key, limit=limit + 1)
    return page_of(rows, limit, repository.token_key)


def revoke_token(session: Session, user: User, token_id: int, now: datetime) -> None:
    """Revoke one of the user's tokens; anybody else's, or one already revoked, is a 404."""
    token = repository.get_token(session, token_id)
    if token is None or token.user_id != user.id or token.revoked_at is not None:
        raise NotFound(f"There is no token #{token_id}.")
    token.revoked_at = now
    session.flush()
