"""A student's effective dates for an assignment and the credit a submission time earns.

Pure functions over stored values, so scoring can be recomputed at any time: the assignment's
dates, overridden field by field by the student's extension.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from app.courses.models import Assignment, Extension
from app.kit.errors import InvalidInput


@dataclass(frozen=True)
class LateWindow:
    until: datetime
    credit: float  # percent, 0..100


@dataclass(frozen=True)
class Dates:
    release_at: datetime
    due_at: datetime
    late: tuple[LateWindow, ...]
    after_last: str  # "zero" or "closed"

    @property
    def closes_at(self) -> datetime:
        """The last moment any credit can be earned."""
        return self.late[-1].until if self.late else self.due_at

    def released(self, now: datetime) -> bool:
        return now >= self.release_at

    def credit_at(self, at: datetime) -> float | None:
        """Percent credit for an accepted submission at ``at``; None before the release (not counted)."""
        if at < self.release_at:
            return None
        if at <= self.due_at:
            return 100.0
        for window in self.late:
            if at <= window.until:
                return window.credit
        return 0.0

    def window_at(self, now: datetime) -> tuple[float, datetime | None]:
        """(credit an accepted submission earns now, until when); after the last window (0, None)."""
        if now <= self.due_at:
            return 100.0, self.due_at
        for window in self.late:
            if now <= window.until:
                return window.credit, window.until
        return 0.0, None

    def open_for_course_access(self, now: datetime) -> bool:
        """Course access to Premium problems: from release; "closed" assignments stop at the close."""
        return self.released(now) and (self.after_last != "closed" or now <= self.closes_at)


def _field(name: str) -> str:
    """The input a message names: ``late[0].until`` is the ``late`` field."""
    return name.split("[")[0].split(".")[0]


def parse_time(value: Any, name: str) -> datetime:
    """An ISO 8601 time with an offset; naive times are refused (whose midnight would it be?)."""
    if isinstance(value, datetime):
        parsed = value
    elif isinstance(value, str):
        try:
            parsed = datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
        except ValueError:
            raise InvalidInput(
                f"{name}: {value[:40]!r} is not an ISO 8601 time.", field=_field(name)
            ) from None
    else:
        raise InvalidInput(
            f"{name} must be an ISO 8601 time such as 2026-03-01T23:59:00+01:00.", field=_field(name)
        )
    if parsed.tzinfo is None:
        raise InvalidInput(f"{name} needs a UTC offset, e.g. 2026-03-01T23:59:00+01:00.", field=_field(name))
    return parsed


def parse_late(raw: Any, due_at: datetime) -> list[dict[str, Any]]:
    """Late windows as stored: ascending ``until`` after the due time, credit between 0 and 100."""
    if raw is None:
        return []
    if not isinstance(raw, list):
        raise InvalidInput('late must be a list of {"until", "credit"}.', field="late")
    windows: list[dict[str, Any]] = []
    previous = due_at
    for i, item in enumerate(raw):
        if not isinstance(item, dict):
            raise InvalidInput(f"late[{i}] must be an object with until and credit.", field="late")
        until = parse_time(item.get("until"), f"late[{i}].until")
        credit = item.get("credit")
        if isinstance(credit, bool) or not isinstance(credit, int | float) or not 0 <= credit <= 100:
            raise InvalidInput(f"late[{i}].credit must be a number from 0 to 100 (percent).", field="late")
        if until <= previous:
            raise InvalidInput(
                f"late[{i}].until must come after the due time and the previous window.", field="late"
            )
        windows.append({"until": until.isoformat(), "credit": float(credit)})
        previous = until
    return windows


def _windows(stored: list[dict[str, Any]]) -> tuple[LateWindow, ...]:
    return tuple(LateWindow(parse_time(w["until"], "until"), float(w["credit"])) for w in stored)


def effective(assignment: Assignment, extension: Extension | None) -> Dates:
    """The student's dates: an extension overrides any of release, due and late windows."""
    release_at, due_at, late = assignment.release_at, assignment.due_at, assignment.late or []
    if extension is not None:
        release_at = extension.release_at or release_at
        due_at = extension.due_at or due_at
        if extension.late is not None:
            late = extension.late
    windows = tuple(w for w in _windows(late) if w.until > due_at)
    return Dates(release_at=release_at, due_at=due_at, late=windows, after_last=assignment.after_last)
