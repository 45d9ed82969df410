"""API tokens: personal access tokens for scripts and the CLI (only a hash is stored)."""

from __future__ import annotations

import hashlib
import secrets
from datetime import datetime, timedelta

from sqlalchemy.orm import Session

from app.accounts import repository
from app.accounts.models import ApiToken, User
from app.accounts.service import is_plain_text
from app.kit.errors import InvalidInput, NotFound
from app.kit.fields import check_one_line
from app.kit.paging import Page, decode_cursor, page_of

TOKEN_PREFIX = "td_"


def _token_hash(token: str) -> str:
    # Tokens are 256-bit random strings, so a fast hash is enough (no password-style stretching).
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


def create_token(session: Session, user: User, name: str, now: datetime) -> tuple[ApiToken, str]:
    """A new personal access token; the plain token is returned once and never stored."""
    if not is_plain_text(name):
        raise InvalidInput("The token name contains characters that cannot be used.")
    name = " ".join(check_one_line(name, "The token name").split())[:100] or "token"
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
    found = repository.token_and_owner(session, _token_hash(plain))
    if found is None or found[0].revoked_at is not None:
        return None
    token, user = found
    if token.last_used_at is None or now - token.last_used_at > timedelta(minutes=1):
        token.last_used_at = now
        session.flush()
    return user


def page_of_tokens(session: Session, user: User, after: str | None, limit: int) -> Page[ApiToken]:
    """One page of the user's live tokens, newest first, after the cursor ``after``."""
    key = decode_cursor(after, (datetime, int)) if after else None
    rows = repository.list_tokens(session, user.id, after=key, limit=limit + 1)
    return page_of(rows, limit, repository.token_key)


def revoke_token(session: Session, user: User, token_id: int, now: datetime) -> None:
    token = repository.get_token(session, token_id)
    if token is None or token.user_id != user.id or token.revoked_at is not None:
        raise NotFound(f"There is no token #{token_id}.")
    token.revoked_at = now
    session.flush()
