"""Password reset by email: "Forgot password?" -> a single-use, expiring link -> a new password.

* The answer is the same whether or not an account has that email (no user enumeration); the
  mail is sent after the commit, in the background, so timing tells nothing either.
* Only the token's SHA-256 is stored; a link works once, until it expires, and a reset closes
  every other open link of the account, ends all of its sessions and revokes all of its API
  tokens (``service.end_access``): the mail and the page say so.
* Requests are limited per email and per client address an hour, counted in the database
  (unknown emails included), so the limits hold across processes and answer alike for everyone.
"""

from __future__ import annotations

import hashlib
import secrets
from datetime import datetime, timedelta

from sqlalchemy.orm import Session

from app.accounts import repository
from app.accounts.models import PasswordReset, User
from app.accounts.service import end_access, normalise_email, password_problem
from app.kit.db import on_commit
from app.kit.errors import FormErrors, TooManyRequests
from app.kit.links import absolute_url
from app.kit.mail import Mailer
from app.kit.security import hash_password
from app.kit.settings import Settings

SUBJECT = "Reset your Torchdrill password"
INVALID_LINK = (
    "This reset link is not valid any more: it was used, replaced or it expired. Ask for a new one."
)


def _hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def request_reset(
    session: Session,
    settings: Settings,
    mailer: Mailer,
    email: str,
    client: str,
    now: datetime,
) -> None:
    """Record the request and, for an existing account within the limits, mail a link (after commit)."""
    address = normalise_email(email)[:254]
    hour_ago = now - timedelta(hours=1)
    if (
        repository.resets_since(session, hour_ago, client=client[:100])
        >= settings.password_reset_per_client_hour
    ):
        raise TooManyRequests("Too many reset requests from here; try again in an hour.", retry_after_s=3600)
    repository.purge_resets(session, now - timedelta(days=1))
    over_limit = (
        repository.resets_since(session, hour_ago, email=address) >= settings.password_reset_per_email_hour
    )
    user = repository.get_user_by_email(session, address)
    token = secrets.token_urlsafe(32) if user is not None and not over_limit else None
    expires = now + timedelta(seconds=settings.password_reset_ttl_s)
    repository.add(
        session,
        PasswordReset(
            user_id=user.id if user is not None else None,
            email=address,
            client=client[:100],
            token_hash=_hash(token) if token else None,
            created_at=now,
            expires_at=expires,
        ),
    )
    if user is None or token is None:
        return
    minutes = settings.password_reset_ttl_s // 60
    body = (
        "Someone (hopefully you) asked to reset the password of your Torchdrill account.\n\n"
        f"Choose a new password here (the link works once, for {minutes} minutes):\n\n"
        f"{absolute_url(settings, '/reset-password', token=token)}\n\n"
        "Setting a new password signs you out everywhere and revokes your API tokens (the command\n"
        "line and scripts will need a new one).\n\n"
        "If you did not ask for this, ignore this mail: your password stays as it is.\n"
    )
    recipient = user.email
    on_commit(session, lambda: mailer.send_later(recipient, SUBJECT, body))


def _open_reset(session: Session, token: str, now: datetime) -> PasswordReset:
    reset = repository.get_reset_by_hash(session, _hash(token)) if token else None
    if reset is None or reset.user_id is None or reset.used_at is not None or reset.expires_at <= now:
        raise FormErrors({"form": INVALID_LINK})
    return reset


def check_token(session: Session, token: str, now: datetime) -> None:
    """Refuse (with the form error) a link that cannot be used, before showing the form."""
    _open_reset(session, token, now)


def reset_password(session: Session, token: str, new_password: str, now: datetime) -> User:
    """Set the new password (the sign-up rules), use up every open link, end every session and
    revoke every API token."""
    reset = _open_reset(session, token, now)
    problem = password_problem(new_password)
    if problem:
        raise FormErrors({"password": problem})
    user = repository.get_user(session, reset.user_id or 0)
    if user is None:
        raise FormErrors({"form": INVALID_LINK})
    user.password_hash = hash_password(new_password)
    end_access(session, user, now)
    repository.close_resets(session, user.id, now)
    session.flush()
    return user
