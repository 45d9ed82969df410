"""The one rule for text out of the sandbox (runner/records/text.py), on any text hypothesis can make."""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from runner.records.text import TRUNCATED, clean, clean_value, is_clean

any_text = st.text(alphabet=st.characters(codec=None, exclude_categories=()), max_size=80)
json_like = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True) | any_text,
    lambda inner: st.lists(inner, max_size=6) | st.dictionaries(any_text, inner, max_size=6),
    max_leaves=30,
)


@given(any_text)
def test_clean_text_is_clean_and_cleaning_it_again_changes_nothing(text: str) -> None:
    once = clean(text)
    assert is_clean(once)
    assert clean(once) == once


@given(st.text(alphabet=st.characters(min_codepoint=0x20, max_codepoint=0x7E), max_size=80))
def test_printable_ascii_is_kept_as_it_is(text: str) -> None:
    assert clean(text) == text


def test_what_is_escaped() -> None:
    assert clean("a\x1b[31mred\x00\r\nnext\u202eevil\ud800") == "a\\x1b[31mred\\x00\nnext\\u202eevil\\ud800"
    assert clean(b"ok \xff") == "ok \\xff"
    assert clean(None) == ""


@given(any_text, st.integers(min_value=0, max_value=40))
def test_a_limit_cuts_with_a_visible_mark(text: str, limit: int) -> None:
    cut = clean(text, limit)
    whole = clean(text)
    if len(whole) <= limit:
        assert cut == whole
    else:
        assert cut.startswith(whole[:limit])
        assert cut.endswith(TRUNCATED.format(n=len(whole) - limit))


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for k, v in value.items() for s in [k, *_strings(v)]]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []


def _numbers(value: Any) -> list[Any]:
    if isinstance(value, dict):
        return [n for v in value.values() for n in _numbers(v)]
    if isinstance(value, list):
        return [n for v in value for n in _numbers(v)]
    return [] if isinstance(value, str) else [value]


@given(json_like)
def test_a_cleaned_value_holds_only_clean_strings_and_the_same_numbers(value: Any) -> None:
    cleaned = clean_value(value)
    assert all(is_clean(s) for s in _strings(cleaned))
    before, after = _numbers(value), _numbers(cleaned)
    assert len(before) == len(after)
    assert all(a is b for a, b in zip(before, after, strict=True))  # the very objects: kept as they are
