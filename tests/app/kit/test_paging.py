"""The one cursor format: what it round-trips, and that anything else is a 422, never a 500."""

from __future__ import annotations

import base64
import json
from datetime import UTC, datetime, timedelta, timezone

import pytest

from app.kit.errors import InvalidInput
from app.kit.paging import decode_cursor, encode_cursor, next_url, page_of

SHAPE = (str, datetime, int)


def _raw(value: object) -> str:
    return base64.urlsafe_b64encode(json.dumps(value).encode()).decode().rstrip("=")


def test_a_key_round_trips_with_its_types() -> None:
    at = datetime(2027, 2, 8, 22, 59, 0, 123456, tzinfo=UTC)
    key = ("zoë@example.com", at, 42)
    cursor = encode_cursor(key)
    assert "=" not in cursor and "/" not in cursor and "+" not in cursor  # URL-safe, unpadded
    assert decode_cursor(cursor, SHAPE) == key
    # A time with another offset is the same instant, travelling as UTC.
    paris = at.astimezone(timezone(timedelta(hours=1)))
    assert decode_cursor(encode_cursor(("a", paris, 1)), SHAPE)[1] == at
    assert decode_cursor(encode_cursor((False, "x")), (bool, str)) == (False, "x")
    with pytest.raises(InvalidInput):
        decode_cursor(encode_cursor((0, "x")), (bool, str))  # a number is not a boolean


@pytest.mark.parametrize(
    "cursor",
    [
        "not-a-cursor",
        "",
        "%%%",
        _raw({"a": 1}),  # not a list
        _raw(["a", "2027-01-01T00:00:00+00:00"]),  # too short
        _raw(["a", "2027-01-01T00:00:00+00:00", 1, 2]),  # too long
        _raw([1, "2027-01-01T00:00:00+00:00", 1]),  # a number for text
        _raw(["a", "2027-01-01T00:00:00", 1]),  # a time without an offset
        _raw(["a", "yesterday", 1]),
        _raw(["a", 5, 1]),
        _raw(["a", "2027-01-01T00:00:00+00:00", "1"]),  # text for a number
        _raw(["a", "2027-01-01T00:00:00+00:00", True]),  # a bool is not an id
        _raw(["a", "2027-01-01T00:00:00+00:00", 1.5]),
        _raw(["a", "2027-01-01T00:00:00+00:00", 2**70]),  # overflows every integer column
        _raw(["a\x00b", "2027-01-01T00:00:00+00:00", 1]),  # NUL never reaches the database
        _raw(["\ud800", "2027-01-01T00:00:00+00:00", 1]),  # nor a lone surrogate (no UTF-8 for it)
        base64.urlsafe_b64encode(b"\xff\xfe[").decode(),  # not UTF-8
        "A" * 2000,
    ],
)
def test_anything_the_api_did_not_give_out_is_invalid_input(cursor: str) -> None:
    with pytest.raises(InvalidInput) as caught:
        decode_cursor(cursor, SHAPE, "after")
    assert caught.value.status_code == 422 and "'after' cursor" in str(caught.value.detail)


def test_page_of_cuts_the_extra_row_and_keys_the_last_one() -> None:
    rows = [("a", 1), ("b", 2), ("c", 3)]
    page = page_of(rows, 2, lambda r: r)
    assert page.items == rows[:2] and page.cursor is not None
    assert decode_cursor(page.cursor, (str, int)) == ("b", 2)
    assert page_of(rows, 3, lambda r: r).cursor is None  # no extra row: the last page
    assert page_of([], 3, lambda r: r).items == []


def test_next_url_keeps_the_filters_and_drops_empty_ones() -> None:
    assert next_url("/api/v1/x", {"q": "a b", "section": None, "tag": "", "limit": 5}, None) is None
    url = next_url("/api/v1/x", {"q": "a b", "section": None, "tag": "", "limit": 5}, "abc")
    assert url == "/api/v1/x?q=a+b&limit=5&after=abc"
    assert next_url("/p", {}, "7", "before") == "/p?before=7"
