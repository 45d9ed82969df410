"""Count phrases: the one pluralising helper of pages (the ``count`` template global), the CLI and
the page scripts' twin (``frontend/src/shared/words.js``, held to the same table by
``tests/app/kit/test_words.py``): "1 case", "3 cases", never "1 cases" or "case(s)"."""

from __future__ import annotations


def count(n: int, noun: str, plural: str | None = None) -> str:
    """``n`` and the noun, singular for exactly one: ``count(1, "case")`` is "1 case"."""
    return f"{n} {noun if n == 1 else plural or noun + 's'}"


def passed_phrase(passed: int, total: int) -> str:
    """How many cases passed: "The 1 case passed", "All 3 cases passed", "2 of 3 cases passed"."""
    if passed == total:
        return "The 1 case passed" if total == 1 else f"All {count(total, 'case')} passed"
    return f"{passed} of {count(total, 'case')} passed"
