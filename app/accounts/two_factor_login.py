"""The sign-in's second step, pending: the password was right, the code is still to come.

Kept in this browser's session only (never a user id the client can name), for
``TORCHDRILL_TWO_FACTOR_PENDING_S`` seconds, and with the user's session epoch of that moment: a
password reset in between ends it. Nobody is signed in while it is pending.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from fastapi import Request
from fastapi.responses import RedirectResponse
from sqlalchemy.orm import Session

from app.accounts import service
from app.accounts.models import User
from app.kit.settings import Settings

PENDING_KEY = "two_factor_pending"
SECOND_STEP_PAGE = "/login/two-factor"


@dataclass(frozen=True)
class Pending:
    user_id: int
    epoch: int
    next: str


def begin(
    request: Request, user: User, next_path: str, settings: Settings, now: datetime
) -> RedirectResponse:
    """Instead of starting the session: remember the password step, and ask for the code (the
    caller has ended any session this browser had: ``deps.end_session``)."""
    request.session[PENDING_KEY] = {
        "uid": user.id,
        "epoch": user.session_epoch or 0,
        "until": now.timestamp() + settings.two_factor_pending_s,
        "next": next_path,
    }
    return RedirectResponse(SECOND_STEP_PAGE, status_code=303)


def pending(request: Request, now: datetime) -> Pending | None:
    """This browser's pending second step, or None (none, malformed, or expired: then forgotten)."""
    value = request.session.get(PENDING_KEY)
    if not isinstance(value, dict):
        return None
    uid, epoch, until, next_path = (value.get(k) for k in ("uid", "epoch", "until", "next"))
    valid = (
        isinstance(uid, int)
        and isinstance(epoch, int)
        and isinstance(until, int | float)
        and isinstance(next_path, str)
        and now.timestamp() < until
    )
    if not valid:
        forget(request)
        return None
    return Pending(uid, epoch, next_path)  # type: ignore[arg-type]


def pending_user(request: Request, session: Session, now: datetime) -> tuple[Pending, User] | None:
    """The pending step and its user, while it still holds: not expired, the user still there with
    two-factor sign-in on, and no password reset since (the session epoch). Forgotten otherwise."""
    waiting = pending(request, now)
    if waiting is None:
        return None
    user = service.get_user(session, waiting.user_id)
    if user is None or not user.two_factor_on or (user.session_epoch or 0) != waiting.epoch:
        forget(request)
        return None
    return waiting, user


def forget(request: Request) -> None:
    request.session.pop(PENDING_KEY, None)
