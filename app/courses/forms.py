"""Times as the course pages show and read them: in the course's timezone, minute precision.

A ``datetime-local`` field has no offset; the pages read it in the course's timezone (the one
the instructor chose), so "23:59" means 23:59 where the class is. The API takes ISO 8601 with
an offset instead (:mod:`app.courses.dates`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, TypeVar
from zoneinfo import ZoneInfo, available_timezones

from app.kit.errors import AppError, InvalidInput

T = TypeVar("T")
LABELS = {"release_at": "Release", "due_at": "Due"}  # the form's words for the fields it names
ZONES = (
    "UTC",
    *sorted(z for z in available_timezones() if "/" in z and not z.startswith(("Etc/", "SystemV/"))),
)


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
        label = LABELS.get(name, name)
        raise InvalidInput(f"{label}: {value[:40]!r} is not a date and time.", field=name) from None
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
            raise InvalidInput(
                f"Late window line {number}: write 'until, credit' e.g. 2027-02-10T23:59, 50.", field="late"
            )
        try:
            percent = float(credit.strip().rstrip("%"))
        except ValueError:
            raise InvalidInput(
                f"Late window line {number}: the credit must be a percent.", field="late"
            ) from None
        windows.append({"until": _late_until(until, timezone, number), "credit": percent})
    return windows


def _late_until(text: str, timezone: str, number: int) -> str | None:
    try:
        return local_time(text, timezone, f"Late window line {number}")
    except InvalidInput as exc:
        raise InvalidInput(exc.detail, field="late") from None


def shown(at: datetime | str | None, timezone: str) -> str:
    """``2027-02-08 23:59 Europe/Paris``: a time where the class is (stored ISO text too)."""
    if at is None:
        return "—"
    if isinstance(at, str):
        at = datetime.fromisoformat(at)
    return f"{at.astimezone(zone(timezone)).strftime('%Y-%m-%d %H:%M')} {timezone or 'UTC'}"


def as_time(at: datetime | str) -> datetime:
    return datetime.fromisoformat(at) if isinstance(at, str) else at


def utc_text(at: datetime | str | None) -> str:
    """A time's ``<time>`` text before the page's script shows it in the viewer's own timezone."""
    return "—" if at is None else shown(at, "UTC")


def iso_utc(at: datetime | str) -> str:
    """A ``<time datetime>`` value: ISO 8601 in UTC."""
    return as_time(at).astimezone(zone("UTC")).strftime("%Y-%m-%dT%H:%M:%SZ")


def field_value(at: datetime | None, timezone: str) -> str:
    """A stored time as a ``datetime-local`` field's value, in the course's timezone."""
    return at.astimezone(zone(timezone)).strftime("%Y-%m-%dT%H:%M") if at is not None else ""


@dataclass
class FormState:
    """A form as the page shows it again: what was typed (every field, kept on an error) and the
    message for each field that was refused (``"form"``: not about one field)."""

    values: dict[str, str] = field(default_factory=dict)
    errors: dict[str, str] = field(default_factory=dict)

    def value(self, name: str, default: str = "") -> str:
        return self.values.get(name, default)

    def error(self, name: str) -> str | None:
        return self.errors.get(name)

    def refuse(self, exc: AppError, default_field: str = "form") -> FormState:
        """The error next to its field: the one it names, else ``default_field``."""
        name = getattr(exc, "field", None) or default_field
        if name not in self.values and name != default_field:
            name = default_field
        self.errors.setdefault(name, exc.detail)
        return self


def checked(state: FormState, name: str, parse: Callable[[], T]) -> T | None:
    """``parse()``, or None with its refusal kept on ``state`` under ``name`` (so every field's
    error shows at once, not only the first)."""
    try:
        return parse()
    except InvalidInput as exc:
        state.errors.setdefault(name, exc.detail)
        return None


def slugs(text: str | Sequence[str]) -> list[str]:
    """The problems field: slugs in order, from a picker's several values or typed text
    (``add-tensors, scale-rows``)."""
    parts = [text] if isinstance(text, str) else list(text)
    return [s for part in parts for s in part.replace(",", " ").split() if s]
