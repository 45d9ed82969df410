"""TOTP codes (RFC 6238, what authenticator apps make) and recovery codes, as plain functions.

Codes have 6 digits and change every 30 s; a code of the step before or after the current one is
accepted too (phones whose clocks drift), but never a step at or before the last one accepted, so
a code seen over a shoulder or in a log cannot be used again. No database and no settings here:
``accounts.two_factor`` stores, seals and throttles.
"""

from __future__ import annotations

import hmac
import secrets
from datetime import datetime

import pyotp
import segno

ISSUER = "Torchdrill"
PERIOD_S = 30
DIGITS = 6
DRIFT_STEPS = 1  # ±1 step (±30 s) of clock drift
SECRET_CHARS = 32  # base32: 160 bits, the size RFC 4226 recommends
RECOVERY_CODES = 10
RECOVERY_ALPHABET = "abcdefghjkmnpqrstuvwxyz23456789"  # no 0/o, 1/l/i to misread
RECOVERY_LENGTH = 12  # ~59 bits each: shown as xxxx-xxxx-xxxx


def new_secret() -> str:
    return pyotp.random_base32(SECRET_CHARS)


def step_at(now: datetime) -> int:
    """The 30-second time step ``now`` falls in (what the code of that moment is made from)."""
    return int(now.timestamp()) // PERIOD_S


def code_at(secret: str, step: int) -> str:
    return pyotp.TOTP(secret, digits=DIGITS, interval=PERIOD_S).generate_otp(step)


def normalise(code: str) -> str:
    """What the person typed, without spaces and hyphens, in lower case ("123 456", "ABCD-…")."""
    return "".join(code.split()).replace("-", "").lower()


def looks_like_totp(code: str) -> bool:
    """Six ASCII digits (after :func:`normalise`): a TOTP code; anything else is a recovery code."""
    return len(code) == DIGITS and code.isascii() and code.isdigit()


def matching_step(secret: str, code: str, now: datetime, last_step: int | None) -> int | None:
    """The time step ``code`` belongs to if it is valid at ``now`` (±1 step) and newer than
    ``last_step``; None otherwise. Every candidate is compared in constant time."""
    if not looks_like_totp(code):
        return None
    current = step_at(now)
    found = None
    for step in range(current - DRIFT_STEPS, current + DRIFT_STEPS + 1):
        fresh = last_step is None or step > last_step
        if hmac.compare_digest(code_at(secret, step), code) and fresh and found is None:
            found = step
    return found


def provisioning_uri(secret: str, account: str) -> str:
    """The ``otpauth://`` URI an authenticator app reads from the QR code."""
    return pyotp.TOTP(secret, digits=DIGITS, interval=PERIOD_S).provisioning_uri(
        name=account, issuer_name=ISSUER
    )


def qr_svg(uri: str) -> str:
    """The URI as a QR code, an inline ``<svg>`` (dark on white, so it scans in dark mode too)."""
    svg: str = segno.make(uri, error="m").svg_inline(scale=4, border=4, dark="#000", light="#fff")
    return svg


def new_recovery_codes() -> list[str]:
    """Fresh recovery codes, formatted for reading (``xxxx-xxxx-xxxx``)."""
    codes = []
    for _ in range(RECOVERY_CODES):
        raw = "".join(secrets.choice(RECOVERY_ALPHABET) for _ in range(RECOVERY_LENGTH))
        codes.append("-".join(raw[i : i + 4] for i in range(0, RECOVERY_LENGTH, 4)))
    return codes
