"""Sign-in sessions, ended on the server: a row per signed-in browser (``UserSession``).

The browser's cookie (signed by Starlette's session middleware) carries a random session id;
the table keeps only its SHA-256, so a copy of the table signs nobody in. A request is signed in
while its row is live; logging out, a password change or reset and "sign out everywhere" revoke
rows, so a copied cookie is dead from then on. Reading the row is the one query a signed-in page
already made for its user (the user and their grants come in the same query, by a unique index);
``last_seen_at`` is written at most once a minute.
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Sequence
from datetime import datetime, timedelta

from sqlalchemy.orm import Session

from app.accounts import repository
from app.accounts.models import User, UserSession
from app.kit.errors import NotFound

SEEN_EVERY = timedelta(minutes=1)
LISTED = 50  # the account page's "where you're signed in" shows this many, newest first


def id_hash(session_id: str) -> str:
    # 256-bit random ids: a fast hash is enough.
    return hashlib.sha256(session_id.encode("utf-8", "surrogatepass")).hexdigest()


def start(
    session: Session, user: User, now: datetime, lifetime_s: int, *, user_agent: str = "", client: str = ""
) -> tuple[UserSession, str]:
    """A new session for ``user``: the row, and the id for the cookie (never stored)."""
    repository.purge_sessions(session, user.id, now - timedelta(days=1))
    plain = secrets.token_urlsafe(32)
    row = UserSession(
        user_id=user.id,
        id_hash=id_hash(plain),
        created_at=now,
        last_seen_at=now,
        expires_at=now + timedelta(seconds=lifetime_s),
        user_agent="".join(ch for ch in user_agent if ch.isprintable())[:200],
        client=client[:100],
    )
    repository.add(session, row)
    return row, plain


def find(session: Session, session_id: str, now: datetime) -> tuple[UserSession, User] | None:
    """The live session with this id and its user (noting the visit, at most once a minute)."""
    if not session_id or len(session_id) > 100:
        return None
    found = repository.session_and_user(session, id_hash(session_id))
    if found is None or not found[0].live_at(now):
        return None
    row, user = found
    if now - row.last_seen_at >= SEEN_EVERY:
        row.last_seen_at = now
        session.flush()
    return row, user


def end(session: Session, row: UserSession, now: datetime) -> None:
    """End one session (logging out)."""
    if row.revoked_at is None:
        row.revoked_at = now
        session.flush()


def end_all(session: Session, user_id: int, now: datetime, *, keep_id: int | None = None) -> int:
    """End every session of the user, but ``keep_id``; how many were ended."""
    return repository.end_sessions(session, user_id, now, keep_id=keep_id)


def end_one(session: Session, user: User, session_row_id: int, now: datetime) -> None:
    """End one of the user's live sessions from the account page; anybody else's is a 404."""
    row = repository.get_session(session, session_row_id)
    if row is None or row.user_id != user.id or not row.live_at(now):
        raise NotFound(f"There is no session #{session_row_id}.")
    end(session, row, now)


def live(session: Session, user: User, now: datetime) -> Sequence[UserSession]:
    """The user's live sessions, newest first (at most :data:`LISTED`)."""
    return repository.live_sessions(session, user.id, now, LISTED)
