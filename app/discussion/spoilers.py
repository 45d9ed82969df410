"""Spoiler code: a fenced block whose info string says ``spoiler`` (```` ```python spoiler ````).

It is folded (a closed ``<details>``) for a reader who has not solved the problem and open for one
who has. Folding is a courtesy, not a secret: one click opens it. Each part of the text is rendered
by :func:`app.kit.user_text.render_user_markdown` (the one safe pipeline); only the fold around a
spoiler's already-safe HTML is ours.
"""

from __future__ import annotations

import re

from app.kit.user_text import render_user_markdown

_OPEN = re.compile(r"^ {0,3}(?P<fence>`{3,}|~{3,})(?P<info>[^\n]*)$")
_SPOILER = re.compile(r"(?:^|\s)spoiler(?:\s|$)", re.IGNORECASE)


def _split(source: str) -> list[tuple[bool, str]]:
    """The text cut into (is_spoiler, part) at the spoiler fences (CommonMark's fence rules)."""
    parts: list[tuple[bool, str]] = []
    lines = source.split("\n")
    plain: list[str] = []
    i = 0
    while i < len(lines):
        found = _OPEN.match(lines[i])
        if found is None:
            plain.append(lines[i])
            i += 1
            continue
        fence, info = found["fence"], found["info"]
        end = i + 1
        close = re.compile(r"^ {0,3}" + re.escape(fence[0]) + "{" + str(len(fence)) + r",}\s*$")
        while end < len(lines) and not close.match(lines[end]):
            end += 1
        block = lines[i : end + 1]
        if (fence[0] == "`" and "`" in info) or not _SPOILER.search(info):
            plain.extend(block)
        else:
            if plain:
                parts.append((False, "\n".join(plain)))
                plain = []
            language = _SPOILER.sub(" ", info).strip()
            parts.append((True, "\n".join([fence + language, *block[1:]])))
        i = end + 1
    if plain:
        parts.append((False, "\n".join(plain)))
    return parts


def has_spoiler(source: str) -> bool:
    return any(spoiler for spoiler, _ in _split(source))


def render_post(source: str, *, solved: bool) -> str:
    """A post's text as safe HTML, its spoiler code folded unless the reader ``solved`` the problem."""
    out: list[str] = []
    for spoiler, part in _split(source):
        html = render_user_markdown(part)
        if spoiler:
            out.append(
                f'<details class="spoiler"{" open" if solved else ""}><summary>Spoiler: code '
                f"{'(you solved this problem)' if solved else 'that may give the answer away — open anyway'}"
                f"</summary>{html}</details>"
            )
        else:
            out.append(html)
    return "".join(out)
