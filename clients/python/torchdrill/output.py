"""The CLI's output layer: nothing a server (or a database row) sends ever drives the terminal.

Text the CLI prints comes from elsewhere: problem titles, track descriptions, verdict messages,
error details, gradebook cells, user emails — and rows stored before the server refused control
characters in them. A terminal acts on some characters instead of showing them: ANSI escape
sequences set colours, move the cursor, clear the screen, set the window title (OSC 0/2), write
the clipboard (OSC 52) or make links (OSC 8); a bare CR or backspace overwrites what was shown;
bidirectional overrides (U+202A–U+202E, U+2066–U+2069, U+200E/U+200F/U+061C) make text read
differently from what it is. :func:`terminal_safe` removes all of them — whole escape sequences
(7-bit ``ESC …`` and 8-bit C1 forms), then every remaining C0/C1 control but newline and tab,
and the bidi controls — and turns lone surrogates into U+FFFD. :func:`echo` is the one way the
CLI prints: every printed string goes through it.
"""

from __future__ import annotations

import re

import typer

_ESCAPE_SEQUENCE = re.compile(
    r"""
      \x1b\[ [0-?]* [ -/]* [@-~]?                 # CSI: colours, cursor, erase (7-bit)
    | \x9b [0-?]* [ -/]* [@-~]?                   # CSI (8-bit)
    | \x1b[\]PX^_] .*? (?: \x07 | \x1b\\ | \x9c | $ )   # OSC, DCS, SOS, PM, APC: to BEL/ST or the end
    | [\x9d\x90\x98\x9e\x9f] .*? (?: \x07 | \x1b\\ | \x9c | $ )  # the same, 8-bit introducers
    | \x1b [ -/]* [0-~]?                          # any other escape (charset, keypad, reset)
    """,
    re.X | re.S,
)
_CONTROLS = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")
_SURROGATES = re.compile("[\ud800-\udfff]")


def terminal_safe(text: object) -> str:
    """``text`` as a terminal shows it and does nothing else: no escapes, controls (but newline
    and tab), bidi overrides or lone surrogates. A CRLF line end becomes a newline."""
    value = str(text)
    if value.isascii() and value.isprintable():  # nothing to remove: most text
        return value
    value = _ESCAPE_SEQUENCE.sub("", value.replace("\r\n", "\n"))
    return _SURROGATES.sub("\ufffd", _CONTROLS.sub("", value))


def echo(text: object = "", *, err: bool = False, nl: bool = True) -> None:
    """Print ``text`` (made :func:`terminal_safe`) to stdout, or stderr with ``err``."""
    typer.echo(terminal_safe(text), err=err, nl=nl)
