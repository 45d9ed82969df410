"""The bank's own files, read by the red-team tests that judge them: one copy of each cheat."""

from __future__ import annotations

from tests.runner.conftest import BANK


def bank_source(slug: str, path: str) -> str:
    """The text of ``path`` (e.g. ``"mutants/cheat_x.py"``) in problem ``slug`` of the bank."""
    return (BANK / slug / path).read_text()


def bank_variant(slug: str, path: str, old: str, new: str) -> str:
    """``bank_source(slug, path)`` with its one ``old`` replaced by ``new``: another route of the
    same cheat. Fails if ``old`` is no longer there exactly once, so a variant cannot silently
    become the file itself."""
    return bank_edited(slug, path, (old, new))


def bank_edited(slug: str, path: str, *edits: tuple[str, str]) -> str:
    """``bank_source(slug, path)`` with each ``(old, new)`` of ``edits`` made in turn, each ``old``
    there exactly once (as for :func:`bank_variant`): a cheat written as changes to the bank's file."""
    source = bank_source(slug, path)
    for old, new in edits:
        assert source.count(old) == 1, f"{slug}/{path} no longer holds this once: {old!r}"
        source = source.replace(old, new)
    return source
