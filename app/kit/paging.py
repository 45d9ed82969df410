"""Keyset pagination: the one cursor format of every list, and the ``next`` link built from it.

A page is the rows *after* the last row of the previous page in the list's own order (a
``WHERE (k1, k2, id) > (:k1, :k2, :id)`` over an index), never an ``OFFSET``: a page costs the
same however deep it is, and rows added meanwhile are neither skipped nor repeated. The cursor is
that last row's sort key as opaque text (URL-safe base64 of a JSON list); it is not a secret — it
only holds values the caller has already seen — but anything other than what the API gave out is
the caller's mistake (422), never a 500.
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Generic, TypeVar
from urllib.parse import urlencode

from app.kit.errors import InvalidInput

T = TypeVar("T")

# What a key may hold: text, integers, booleans, UTC times (a cursor is at most this long, as text).
KeyPart = str | int | bool | datetime
MAX_CURSOR = 1000


def encode_cursor(key: Sequence[KeyPart]) -> str:
    """The cursor of a row whose sort key is ``key`` (times travel as ISO 8601 UTC text)."""
    parts = [v.astimezone(UTC).isoformat() if isinstance(v, datetime) else v for v in key]
    return base64.urlsafe_b64encode(json.dumps(parts, ensure_ascii=False).encode()).decode().rstrip("=")


def decode_cursor(cursor: str, shape: Sequence[type[KeyPart]], param: str = "after") -> tuple[Any, ...]:
    """The key in ``cursor``, typed by ``shape`` (e.g. ``(datetime, int)``); 422 for anything else."""
    try:
        if len(cursor) > MAX_CURSOR:
            raise ValueError
        raw = json.loads(base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)))
        if not isinstance(raw, list) or len(raw) != len(shape):
            raise ValueError
        return tuple(_part(value, kind) for value, kind in zip(raw, shape, strict=True))
    except (ValueError, TypeError, binascii.Error, UnicodeDecodeError, OverflowError):
        raise InvalidInput(
            f"The '{param}' cursor is not one this API gave out; follow the 'next' links."
        ) from None


def _part(value: Any, kind: type[KeyPart]) -> KeyPart:
    if kind is datetime:
        if not isinstance(value, str):
            raise ValueError
        at = datetime.fromisoformat(value)
        if at.tzinfo is None:
            raise ValueError
        return at.astimezone(UTC)
    if kind is bool:
        if not isinstance(value, bool):
            raise ValueError
        return value
    if kind is int:
        # bool is an int in Python; ids and ranks fit a 64-bit column.
        if not isinstance(value, int) or isinstance(value, bool) or not -(2**63) <= value < 2**63:
            raise ValueError
        return value
    if not isinstance(value, str) or "\x00" in value:
        raise ValueError
    value.encode("utf-8")  # a lone surrogate (JSON "\ud800") would fail in the database driver
    return value


@dataclass(frozen=True)
class Page(Generic[T]):
    """One page of rows and the cursor of the next one (None: this is the last page)."""

    items: list[T]
    cursor: str | None


def page_of(rows: Sequence[T], limit: int, key: Any) -> Page[T]:
    """Cut ``limit + 1`` fetched rows to a page; the extra row only says that there is a next page.

    ``key(row)`` is the row's sort key, the same tuple the query compares the cursor with.
    """
    items = list(rows[:limit])
    more = len(rows) > limit
    return Page(items, encode_cursor(key(items[-1])) if more and items else None)


def next_url(path: str, params: Mapping[str, object], cursor: str | None, param: str = "after") -> str | None:
    """``path?params&<param>=cursor`` for the next page, or None on the last; empty params dropped."""
    if cursor is None:
        return None
    kept = {k: v for k, v in params.items() if v is not None and v != ""}
    return f"{path}?{urlencode({**kept, param: cursor})}"
