"""A line diff of two submissions' code, for the "compare two submissions" page.

Every line is shown (solutions are short), each marked as kept, removed or added, with its line
numbers in the older and the newer code, so the page can show exactly what changed between tries.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from typing import Literal

Kind = Literal["same", "removed", "added"]


@dataclass(frozen=True)
class DiffLine:
    kind: Kind
    old_no: int | None  # line number in the older code (None: an added line)
    new_no: int | None  # line number in the newer code (None: a removed line)
    text: str


@dataclass(frozen=True)
class CodeDiff:
    lines: list[DiffLine]

    @property
    def added(self) -> int:
        return sum(1 for line in self.lines if line.kind == "added")

    @property
    def removed(self) -> int:
        return sum(1 for line in self.lines if line.kind == "removed")


def line_diff(old: str, new: str) -> CodeDiff:
    a, b = old.splitlines(), new.splitlines()
    out: list[DiffLine] = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if tag == "equal":
            out += [
                DiffLine("same", i + 1, j + 1, a[i])
                for i, j in zip(range(i1, i2), range(j1, j2), strict=True)
            ]
            continue
        out += [DiffLine("removed", i + 1, None, a[i]) for i in range(i1, i2)]
        out += [DiffLine("added", None, j + 1, b[j]) for j in range(j1, j2)]
    return CodeDiff(out)
