"""The one rule for text that comes out of the sandbox: decoded once, on the host, into safe text.

Everything a learner's process emits (stdout, stderr, exception messages and tracebacks, case
messages, strings inside returned values) is untrusted. Before it is stored, served or printed it
goes through :func:`clean`:

* bytes are decoded as UTF-8; an invalid byte becomes a visible escape (``\\xff``);
* lone surrogates (which JSON can carry as ``\\ud800``) become visible escapes (``\\ud800``): no
  database, JSON encoder or terminal ever sees one;
* NUL and the other control characters (C0 but ``\\n`` and ``\\t``, DEL, C1), which carry ANSI
  terminal sequences and which PostgreSQL refuses in text and JSON, become visible escapes
  (``\\x00``, ``\\x1b``); so do the bidirectional overrides that make text read differently
  from what it is (U+202A–U+202E, U+2066–U+2069); ``\\r\\n`` becomes ``\\n``;
* with a ``limit``, the text is cut there and ends with a visible "truncated" mark.

The result is valid text for SQLite and PostgreSQL, any JSON encoder, an HTML page (which
escapes it further) and a terminal. :func:`clean_value` applies the same rule to every string in
a JSON-like value (keys included), so a record or a stored result is clean as a whole.
"""

from __future__ import annotations

import re
from typing import Any

TRUNCATED = "… (truncated: {n} more characters)"
_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\ud800-\udfff]")
_MAX_DEPTH = 200
_LEAVES = frozenset({int, float, bool, type(None)})  # kept as they are, exactly these types


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"


def clean(text: str | bytes | None, limit: int | None = None) -> str:
    """``text`` as safe, valid text (see the module's rule); at most ``limit`` characters + a mark."""
    if type(text) is str and text.isascii() and text.isprintable():  # nothing to escape: most text
        return text if limit is None or len(text) <= limit else _cut(text, limit)
    if text is None:
        return ""
    if isinstance(text, bytes | bytearray):
        text = bytes(text).decode("utf-8", errors="backslashreplace")
    elif not isinstance(text, str):
        text = str(text)
    if "\r\n" in text:
        text = text.replace("\r\n", "\n")
    if _UNSAFE.search(text):
        text = _UNSAFE.sub(_escape, text)
    if limit is not None and len(text) > limit:
        text = _cut(text, limit)
    return text


def _cut(text: str, limit: int) -> str:
    rest = len(text) - limit
    return text[:limit] + ("\n" if not text[:limit].endswith("\n") else "") + TRUNCATED.format(n=rest)


def clean_value(value: Any, _depth: int = 0) -> Any:
    """Every string in a JSON-like value (dict keys included) cleaned; other leaves kept as they are.

    Values deeper than the JSON decoder's own safe depth are replaced by a marker string, so a
    value read back from old rows can always be served.
    """
    if type(value) in _LEAVES:
        return value
    if isinstance(value, str):
        return clean(value)
    if _depth > _MAX_DEPTH:
        return "… (nested too deeply to show)"
    if isinstance(value, dict):
        return {clean(str(k)): clean_value(v, _depth + 1) for k, v in value.items()}
    if isinstance(value, list | tuple):
        # numbers, the bulk of a tensor's values, without a call each
        return [v if type(v) in _LEAVES else clean_value(v, _depth + 1) for v in value]
    return value


def is_clean(text: str) -> bool:
    """True when ``text`` needs no escaping (what :func:`clean` leaves unchanged, without a limit)."""
    return "\r\n" not in text and _UNSAFE.search(text) is None
