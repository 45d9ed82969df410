"""The source policy's vocabulary for dotted paths: a :class:`Refusal`, how identifiers are read
(NFKC), whether a path is under another, and which denied part of torch a path reaches."""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass, field

from runner.judging.source_rules import DENIED_TORCH


@dataclass(frozen=True)
class Refusal:
    """Why judged code is refused: where, which rule, and a message a learner understands."""

    line: int
    column: int
    rule: str
    message: str
    # Where the refused expression ends: of two refusals at one place, the inner one is reported
    # (`a.__self__.__dict__` names `__self__`, the first step that is refused).
    end: tuple[int, int] = field(default=(0, 0), repr=False, compare=False)

    def __str__(self) -> str:
        return f"Line {self.line}: {self.message}"


def norm(name: str) -> str:
    return unicodedata.normalize("NFKC", name)


def under(path: str, prefix: str) -> bool:
    return path == prefix or path.startswith(prefix + ".")


_DENIED_ORDER = {denied: i for i, denied in enumerate(DENIED_TORCH)}


def denied_torch(path: str) -> str | None:
    """The first entry of ``DENIED_TORCH`` that ``path`` is under, or None: each of the path's
    dotted prefixes looked up, rather than every entry tried against the path."""
    parts = path.split(".")
    found = [p for p in (".".join(parts[:k]) for k in range(1, len(parts) + 1)) if p in _DENIED_ORDER]
    return min(found, key=_DENIED_ORDER.__getitem__, default=None)
