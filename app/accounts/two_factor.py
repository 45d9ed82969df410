"""Two-factor sign-in: a TOTP authenticator app, with one-use recovery codes.

Any account can turn it on from ``/account/two-factor``; a site can require it of instructors and
admins (``TORCHDRILL_REQUIRE_2FA_FOR_STAFF``: :func:`must_enrol`). Once on, the sign-in page asks
for a code after the password (``accounts.two_factor_login``) and the token endpoint wants it as
``otp`` (:func:`token_check`).

The secret is sealed (``kit.sealing``, AES-GCM bound to the user's id) and recovery codes are kept
as keyed hashes, so a copy of the database alone makes no codes. Every check of a second factor,
and of the password that guards these settings, first claims an attempt in a transaction of its
own (:func:`claim_attempt`): a few per account and window, then 429 — the attempts of a failing
request are kept although its own transaction rolls back.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Literal

from sqlalchemy.orm import Session

from app.accounts import repository, totp
from app.accounts.models import TwoFactorAttempt, User
from app.kit.db import Database, on_commit
from app.kit.errors import Conflict, Forbidden, FormErrors, LoginRequired, TooManyRequests
from app.kit.mail import Mailer
from app.kit.sealing import SealBroken, keyed_hash, seal, unseal
from app.kit.security import verify_password
from app.kit.settings import Settings

log = logging.getLogger("torchdrill.accounts")

SECRET_PURPOSE = "totp-secret"
RECOVERY_PURPOSE = "recovery-code"
SETTINGS_PAGE = "/account/two-factor"

WRONG_CODE = "That code is not correct, or it was used already. Enter the newest code from your app."
WRONG_PASSWORD = "Your password is not correct."

SecondFactor = Literal["totp", "recovery"]
Change = Literal["on", "off", "codes", "reset"]

NOTICE_SUBJECT = "Two-factor sign-in on your Torchdrill account"
NOTICES: dict[Change, str] = {
    "on": "Two-factor sign-in was turned on: signing in now also asks for a code from your app.",
    "off": "Two-factor sign-in was turned off: your password alone signs you in now.",
    "codes": "New recovery codes were made for two-factor sign-in; the old ones no longer work.",
    "reset": "An administrator reset your two-factor sign-in: your password alone signs you in now.",
}


class TwoFactorRequired(Forbidden):
    code = "two_factor_required"
    default_detail = (
        "Instructors and admins must turn on two-factor sign-in first: "
        f"set it up on the account page ({SETTINGS_PAGE})."
    )


class OtpRequired(LoginRequired):
    code = "otp_required"
    default_detail = (
        "This account uses two-factor sign-in: send the 6-digit code from your authenticator app "
        "(or a recovery code) as `otp`."
    )


class InvalidOtp(LoginRequired):
    code = "invalid_otp"
    default_detail = "The two-factor code is not correct, or it was used already."


def must_enrol(user: User, required: bool) -> bool:
    """True for staff without two-factor sign-in when the site requires it (``required``)."""
    return required and user.is_staff and not user.two_factor_on


# --- the secret and the recovery codes, as stored ---------------------------------------------------


def _context(user_id: int) -> bytes:
    return f"user:{user_id}".encode()


def _secret(settings: Settings, user: User) -> str | None:
    """The user's TOTP secret, or None (none stored, or sealed under another secret key)."""
    if user.totp_secret is None:
        return None
    try:
        return unseal(settings.secret_key, SECRET_PURPOSE, user.totp_secret, _context(user.id)).decode()
    except SealBroken:
        log.error(
            "the two-factor secret of user #%s does not open: was TORCHDRILL_SECRET_KEY changed? "
            "(an admin can reset it: torchdrill users reset-2fa)",
            user.id,
        )
        return None


def _recovery_hash(settings: Settings, user_id: int, code: str) -> str:
    data = f"{user_id}:{totp.normalise(code)}".encode()
    return keyed_hash(settings.secret_key, RECOVERY_PURPOSE, data)


def _new_recovery_codes(session: Session, settings: Settings, user: User, now: datetime) -> list[str]:
    codes = totp.new_recovery_codes()
    hashes = [_recovery_hash(settings, user.id, c) for c in codes]
    repository.replace_recovery_codes(session, user.id, hashes, now)
    return codes


def recovery_codes_left(session: Session, user: User) -> int:
    return repository.recovery_codes_left(session, user.id)


def notice(change: Change) -> str:
    """The mail that tells the account's owner about a change of their second factor."""
    return (
        f"{NOTICES[change]}\n\n"
        'If this was not you, change your password now (or use "Forgot password?" on the log-in page) '
        "and tell the site's administrators.\n"
    )


def _tell_owner(session: Session, mailer: Mailer | None, user: User, change: Change) -> None:
    """Mail the owner once the change is committed (never for a change that rolled back)."""
    if mailer is not None:
        to, body = user.email, notice(change)
        on_commit(session, lambda: mailer.send_later(to, NOTICE_SUBJECT, body))


# --- throttling ---------------------------------------------------------------------------------


def claim_attempt(db: Database, settings: Settings, user_id: int, now: datetime) -> None:
    """Count one try against the user's allowance, committed at once; 429 when it is spent.

    The try is written before it is counted, with the user's row locked: concurrent tries are
    counted one after another, so a burst gets no more than the allowance. A refused try is not
    kept (the wait is from the oldest counted try).
    """
    window = timedelta(seconds=settings.two_factor_window_s)
    with db.transaction() as session:
        repository.lock_user(session, user_id)
        repository.add(session, TwoFactorAttempt(user_id=user_id, at=now))
        count, oldest = repository.attempts_since(session, user_id, now - window)
        if count > settings.two_factor_max_attempts:
            wait = ((oldest or now) + window - now).total_seconds()
            minutes = max(1, round(wait / 60))
            log.warning(
                "two-factor attempts of user #%s are being refused (%d in the window)", user_id, count
            )
            plural = "s" if minutes != 1 else ""
            raise TooManyRequests(
                f"Too many wrong codes. Wait about {minutes} minute{plural} and try again.",
                retry_after_s=max(1.0, wait),
            )
        repository.purge_attempts(session, now - timedelta(days=1))


# --- turning it on and off ------------------------------------------------------------------------


@dataclass(frozen=True)
class Setup:
    """What the set-up page shows: the secret (grouped for typing), its URI and the URI's QR code."""

    secret: str
    uri: str
    qr_svg: str


def setup_in_progress(settings: Settings, user: User) -> Setup | None:
    """The secret being set up (not confirmed yet), or None."""
    secret = None if user.two_factor_on else _secret(settings, user)
    if secret is None:
        return None
    uri = totp.provisioning_uri(secret, user.email)
    grouped = " ".join(secret[i : i + 4] for i in range(0, len(secret), 4))
    return Setup(secret=grouped, uri=uri, qr_svg=totp.qr_svg(uri))


def start_setup(session: Session, settings: Settings, user: User) -> None:
    """A new secret to scan; two-factor sign-in is not on until a code from it is confirmed."""
    if user.two_factor_on:
        raise Conflict("Two-factor sign-in is already on. Turn it off first to use another app.")
    user.totp_secret = seal(
        settings.secret_key, SECRET_PURPOSE, totp.new_secret().encode(), _context(user.id)
    )
    user.totp_last_step = None
    session.flush()


def enable(
    session: Session,
    db: Database,
    settings: Settings,
    user: User,
    password: str,
    code: str,
    now: datetime,
    mailer: Mailer | None = None,
) -> list[str]:
    """Turn it on with the password and a current code from the app; the recovery codes (shown once)."""
    if user.two_factor_on:
        raise Conflict("Two-factor sign-in is already on.")
    secret = _secret(settings, user)
    if secret is None:
        raise FormErrors({"form": "Start the set-up first: press “Set up two-factor sign-in”."})
    claim_attempt(db, settings, user.id, now)
    errors: dict[str, str] = {}
    if not verify_password(user.password_hash, password):
        errors["password"] = WRONG_PASSWORD
    step = totp.matching_step(secret, totp.normalise(code), now, None)
    if step is None:
        errors["code"] = (
            "That code is not correct. Enter the newest 6-digit code from your app "
            "(and check that your phone's clock is set automatically)."
        )
    if errors:
        raise FormErrors(errors)
    user.totp_enabled_at = now
    user.totp_last_step = step  # the confirming code cannot sign in afterwards
    codes = _new_recovery_codes(session, settings, user, now)
    repository.clear_attempts(session, user.id)
    session.flush()
    log.info("two-factor sign-in turned on for user #%s", user.id)
    _tell_owner(session, mailer, user, "on")
    return codes


def disable(
    session: Session,
    db: Database,
    settings: Settings,
    user: User,
    password: str,
    code: str,
    now: datetime,
    mailer: Mailer | None = None,
) -> None:
    """Turn it off with the password and a code (from the app, or a recovery code)."""
    if not user.two_factor_on:
        raise Conflict("Two-factor sign-in is not on.")
    claim_attempt(db, settings, user.id, now)
    if not verify_password(user.password_hash, password):
        raise FormErrors({"password": WRONG_PASSWORD})
    if _use_second_factor(session, settings, user, code, now) is None:
        raise FormErrors({"code": WRONG_CODE})
    _turn_off(session, user)
    log.info("two-factor sign-in turned off by user #%s", user.id)
    _tell_owner(session, mailer, user, "off")


def regenerate_recovery_codes(
    session: Session,
    db: Database,
    settings: Settings,
    user: User,
    password: str,
    now: datetime,
    mailer: Mailer | None = None,
) -> list[str]:
    """New recovery codes (shown once) with the password; the old ones stop working."""
    if not user.two_factor_on:
        raise Conflict("Two-factor sign-in is not on.")
    claim_attempt(db, settings, user.id, now)
    if not verify_password(user.password_hash, password):
        raise FormErrors({"password": WRONG_PASSWORD})
    codes = _new_recovery_codes(session, settings, user, now)
    repository.clear_attempts(session, user.id)
    log.info("recovery codes of user #%s regenerated", user.id)
    _tell_owner(session, mailer, user, "codes")
    return codes


def reset(session: Session, user: User, by: str, mailer: Mailer | None = None) -> None:
    """Turn it off for someone who lost their phone and codes (an admin's act, audited in the log;
    the owner is mailed when ``mailer`` is given)."""
    _turn_off(session, user)
    log.warning("two-factor sign-in of %s (user #%s) reset by %s", user.email, user.id, by)
    _tell_owner(session, mailer, user, "reset")


def _turn_off(session: Session, user: User) -> None:
    user.totp_secret = None
    user.totp_enabled_at = None
    user.totp_last_step = None
    repository.delete_recovery_codes(session, user.id)
    repository.clear_attempts(session, user.id)
    session.flush()


# --- checking a code ------------------------------------------------------------------------------


def check_second_factor(
    session: Session, db: Database, settings: Settings, user: User, code: str, now: datetime
) -> SecondFactor | None:
    """Which factor ``code`` was (used up now: a TOTP step or a recovery code works once), or None
    when it is wrong. Throttled (:func:`claim_attempt`): 429 once the allowance is spent."""
    claim_attempt(db, settings, user.id, now)
    used = _use_second_factor(session, settings, user, code, now)
    if used is not None:
        repository.clear_attempts(session, user.id)
    return used


def _use_second_factor(
    session: Session, settings: Settings, user: User, code: str, now: datetime
) -> SecondFactor | None:
    code = totp.normalise(code)
    if not code or len(code) > 64:
        return None
    if totp.looks_like_totp(code):
        secret = _secret(settings, user)
        step = None if secret is None else totp.matching_step(secret, code, now, user.totp_last_step)
        # The conditional UPDATE is what refuses a replay, even of two requests at the same moment.
        return "totp" if step is not None and repository.advance_totp_step(session, user.id, step) else None
    hashed = _recovery_hash(settings, user.id, code)
    return "recovery" if repository.use_recovery_code(session, user.id, hashed, now) else None


def token_check(
    session: Session, db: Database, settings: Settings, otp: str, now: datetime
) -> Callable[[User], None]:
    """The token endpoint's second step, run once the password is right (``service.log_in``):
    staff who must enrol get no token (403); with two-factor sign-in on, ``otp`` must be a valid
    code (401 ``otp_required`` when missing, ``invalid_otp`` when wrong, 429 when throttled)."""

    def check(user: User) -> None:
        if must_enrol(user, settings.require_2fa_for_staff):
            raise TwoFactorRequired()
        if not user.two_factor_on:
            return
        if not otp.strip():
            raise OtpRequired()
        if check_second_factor(session, db, settings, user, otp, now) is None:
            raise InvalidOtp()

    return check
