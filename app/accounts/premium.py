"""The premium entitlement: who has it (``is_premium``, the only rule), grants and redeemable codes."""

from __future__ import annotations

import re
import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from app.accounts import repository
from app.accounts.models import STAFF_ROLES, PremiumCode, PremiumGrant, User
from app.accounts.service import is_plain_text, require_role
from app.kit.errors import FormErrors, InvalidInput
from runner.format.fields import one_line_error

MAX_PREMIUM_DAYS = 3660
MAX_CODE_USES = 10_000
CODE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"  # no 0/O, 1/I
CODE_RE = re.compile(r"^[A-Z2-9]{4}-[A-Z2-9]{4}-[A-Z2-9]{4}$")


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


def grant_purchased_premium(session: Session, user: User, days: int, now: datetime) -> PremiumGrant:
    """Add ``days`` of Premium paid through billing (after any premium the user already has)."""
    _check_days(days)
    start = premium_until(user, now) or now
    grant = PremiumGrant(user_id=user.id, starts_at=now, expires_at=start + timedelta(days=days),
                         source="billing", created_at=now)  # fmt: skip
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
    one_line = one_line_error("The class name", label) if is_plain_text(label) else None
    label = " ".join(label.split())
    if len(label) > 200 or not is_plain_text(label):
        errors["label"] = "Use at most 200 plain characters for the class name."
    elif one_line is not None:
        errors["label"] = one_line
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
