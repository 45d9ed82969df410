"""Times as the course pages show and read them: in the course's timezone, minute precision.

A ``datetime-local`` field has no offset; the pages read it in the course's timezone (the one
the instructor chose), so "23:59" means 23:59 where the class is. The API takes ISO 8601 with
an offset instead (:mod:`app.courses.dates`).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

from app.kit.errors import InvalidInput


def zone(name: str) -> ZoneInfo:
    try:
        return ZoneInfo(name or "UTC")
    except (KeyError, ValueError):
        return ZoneInfo("UTC")


def local_time(value: str, timezone: str, name: str) -> str | None:
    """A ``datetime-local`` value (``2027-02-08T23:59``) as ISO 8601 with the course's offset."""
    value = (value or "").strip()
    if not value:
        return None
    try:
        parsed = datetime.fromisoformat(value)
    except ValueError:
        raise InvalidInput(f"{name}: {value[:40]!r} is not a date and time.") from None
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=zone(timezone))
    return parsed.isoformat()


def late_windows(text: str, timezone: str) -> list[dict[str, Any]]:
    """Late windows typed one per line as ``2027-02-10T23:59, 50`` (until, percent credit)."""
    windows: list[dict[str, Any]] = []
    for number, line in enumerate((text or "").splitlines(), 1):
        if not line.strip():
            continue
        until, sep, credit = line.rpartition(",")
        if not sep:
            raise InvalidInput(f"Late window line {number}: write 'until, credit' e.g. 2027-02-10T23:59, 50.")
        try:
            percent = float(credit.strip().rstrip("%"))
        except ValueError:
            raise InvalidInput(f"Late window line {number}: the credit must be a percent.") from None
        windows.append(
            {"until": local_time(until, timezone, f"late window line {number}"), "credit": percent}
        )
    return windows


def shown(at: datetime | str | None, timezone: str) -> str:
    """``2027-02-08 23:59 Europe/Paris``: a time where the class is (stored ISO text too)."""
    if at is None:
        return "—"
    if isinstance(at, str):
        at = datetime.fromisoformat(at)
    return f"{at.astimezone(zone(timezone)).strftime('%Y-%m-%d %H:%M')} {timezone or 'UTC'}"


def field_value(at: datetime | None, timezone: str) -> str:
    """A stored time as a ``datetime-local`` field's value, in the course's timezone."""
    return at.astimezone(zone(timezone)).strftime("%Y-%m-%dT%H:%M") if at is not None else ""
