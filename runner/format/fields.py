"""The rule for one-line fields: titles, names, categories, tags, sections, token names.

A one-line field is shown in places that act on control characters: a terminal (the CLI prints
titles), a spreadsheet (the gradebook's headers), a page title, a log line. So it holds no
character of Unicode category Cc (C0 and C1 controls, DEL — newline and tab included: the field is
one line) or Cf (format characters: the bidirectional overrides and isolates that make text read
differently from what it is, zero-width characters, the BOM). Multi-line fields (statements, hints,
descriptions, code) are not one-line fields.

It lives in the runner (which never imports the app) so that ``problem.toml`` and ``tracks.toml``
validation apply it without a database; the app applies the same function to every route
(``app.kit.fields``).
"""

from __future__ import annotations

import unicodedata

_REFUSED = frozenset({"Cc", "Cf"})


def forbidden_character(text: str) -> str | None:
    """The first character a one-line field may not hold, named (``U+001B``), or None."""
    if text.isascii() and text.isprintable():  # nothing to look at: most text
        return None
    for char in text:
        if unicodedata.category(char) in _REFUSED or "\ud800" <= char <= "\udfff":
            name = unicodedata.name(char, "")
            return f"U+{ord(char):04X}" + (f" ({name.lower()})" if name else "")
    return None


def one_line_error(field: str, text: str) -> str | None:
    """Why ``text`` cannot be the one-line field ``field`` (a sentence for a 422), or None."""
    found = forbidden_character(text)
    if found is None:
        return None
    return (
        f"{field} must be one line of plain text: it contains the control character {found} "
        "(line breaks, tabs, escape sequences and bidirectional or invisible formatting characters "
        "are not allowed)."
    )
