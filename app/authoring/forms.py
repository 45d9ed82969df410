"""The editor form <-> a problem folder's files.

The form shows ``problem.toml`` as metadata fields. Saving keeps the author's ``problem.toml``
byte for byte (comments, order) unless a field really changed; only then is it rewritten from
the fields, so a folder imported from git round-trips exactly through the web editor.
Browsers send textarea content with CRLF line ends; they are turned back into LF here.
"""

from __future__ import annotations

import json
import tomllib
from dataclasses import dataclass, field
from typing import Any

from app.authoring.checking import InvalidProblem
from runner.format.problem import (
    EDITORIAL_FILE,
    MAX_HINTS,
    REQUIRED_FILES,
    ProblemFormatError,
    parse_metadata,
    toml_value,
)
from runner.jobs import Limits

DEFAULT_LIMITS = Limits()

SKELETON = {
    "statement.md": (
        "## Problem Statement\n\nWrite a function `solve()` that ...\n\n"
        "## Example\n\n### Input\n\nNo arguments.\n\n### Output\n\n```python\n0\n```\n\n"
        "## Constraints\n\n- Only `torch` is available.\n"
    ),
    "learn.md": "## Background Knowledge\n\nExplain the idea here.\n",
    "starter.py": 'def solve():\n    # TODO\n    raise NotImplementedError("solve is not implemented yet")\n',
    "solution.py": "def solve():\n    return 0\n",
    "tests.py": (
        "from runner.testing import case\n\n\n@case(public=True)\ndef example(solution):\n"
        "    return solution.solve()\n"
    ),
}


@dataclass
class EditorForm:
    slug: str = ""
    title: str = ""
    difficulty: str = "easy"
    category: str = ""
    tags: str = ""  # comma-separated in the form
    premium: bool = False
    entry_point: str = "solve"
    time_s: str = ""
    memory_mb: str = ""
    order: str = ""  # place in its track; blank = 0
    hints: list[str] = field(default_factory=list)  # up to MAX_HINTS, gentlest first
    statement: str = ""
    learn: str = ""
    editorial: str = ""  # editorial.md, optional (opens to learners after solving or giving up)
    starter: str = ""
    solution: str = ""
    tests: str = ""
    mutants: list[tuple[str, str]] = field(default_factory=list)
    toml_source: str = ""

    @classmethod
    def blank(cls) -> EditorForm:
        return cls(
            statement=SKELETON["statement.md"],
            learn=SKELETON["learn.md"],
            starter=SKELETON["starter.py"],
            solution=SKELETON["solution.py"],
            tests=SKELETON["tests.py"],
        )

    @classmethod
    def from_files(cls, slug: str, files: dict[str, str]) -> EditorForm:
        toml = files.get("problem.toml", "")
        form = cls(
            slug=slug,
            statement=files.get("statement.md", ""),
            learn=files.get("learn.md", ""),
            editorial=files.get("editorial.md", ""),
            starter=files.get("starter.py", ""),
            solution=files.get("solution.py", ""),
            tests=files.get("tests.py", ""),
            mutants=[
                (rel.removeprefix("mutants/").removesuffix(".py"), text)
                for rel, text in sorted(files.items())
                if rel.startswith("mutants/")
            ],
            toml_source=toml,
        )
        try:
            meta = parse_metadata(toml, slug)
        except ProblemFormatError:
            return form  # shown as typed; saving reports the cause
        form.title, form.difficulty, form.category = meta["title"], meta["difficulty"], meta["category"]
        form.tags = ", ".join(meta["tags"])
        form.premium, form.entry_point = meta["premium"], meta["entry_point"]
        form.order = str(meta["order"]) if meta["order"] else ""
        form.hints = list(meta["hints"])
        limits: Limits = meta["limits"]
        written = tomllib.loads(toml).get("limits", {})  # show the limits the author wrote, defaults blank
        form.time_s = _number(limits.time_s) if "time_s" in written else ""
        form.memory_mb = str(limits.memory_mb) if "memory_mb" in written else ""
        return form

    def tag_list(self) -> list[str]:
        return [t.strip() for t in self.tags.split(",") if t.strip()]

    def metadata(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "title": self.title.strip(),
            "difficulty": self.difficulty.strip(),
            "category": self.category.strip(),
            "tags": self.tag_list(),
            "premium": self.premium,
            "entry_point": self.entry_point.strip(),
            "hints": [h.strip() for h in self.hints if h.strip()],
        }
        if self.order.strip():
            try:
                data["order"] = int(self.order)
            except ValueError:
                raise InvalidProblem(f"place in track {self.order!r} is not a whole number") from None
        limits: dict[str, Any] = {}
        if self.time_s.strip():
            try:
                limits["time_s"] = float(self.time_s)
            except ValueError:
                raise InvalidProblem(f"time limit {self.time_s!r} is not a number of seconds") from None
        if self.memory_mb.strip():
            try:
                limits["memory_mb"] = int(self.memory_mb)
            except ValueError:
                raise InvalidProblem(f"memory limit {self.memory_mb!r} is not a whole number of MB") from None
        if limits:
            data["limits"] = limits
        return data

    def problem_toml(self) -> str:
        """The author's problem.toml if the fields still say the same, else one rendered from them."""
        wanted = self.metadata()
        if self.toml_source:
            try:
                old = parse_metadata(self.toml_source, self.slug or "x-placeholder")
            except ProblemFormatError:
                old = None
            if old is not None and _same(old, wanted):
                return self.toml_source
            if old is not None and old["example_input"] is not None:  # not a form field: kept as written
                wanted["example_input"] = old["example_input"]
        return render_toml(wanted)

    def files(self) -> dict[str, str]:
        out = {
            "problem.toml": self.problem_toml(),
            "statement.md": self.statement,
            "learn.md": self.learn,
            "starter.py": self.starter,
            "solution.py": self.solution,
            "tests.py": self.tests,
        }
        if self.editorial.strip():
            out["editorial.md"] = self.editorial
        for position, (name, code) in enumerate(self.mutants, start=1):
            name = name.strip().removesuffix(".py")
            if not name and not code.strip():
                continue  # the empty "add a mutant" slot
            if not name:
                raise InvalidProblem(
                    f"mutant #{position} has no name: name it, e.g. 'forgets_to_remove_hook'"
                )
            rel = f"mutants/{name}.py"
            if rel in out:
                raise InvalidProblem(f"two mutants are named {name!r}")
            out[rel] = code
        return out


# The files the form edits (a blank Editorial field removes ``editorial.md``): the rest of a problem's
# files (its ``alternatives/``) are kept as they are.
FORM_FILES = frozenset({*REQUIRED_FILES, EDITORIAL_FILE})


def edited_by_form(rel: str) -> bool:
    return rel in FORM_FILES or rel.startswith("mutants/")


def with_unedited(form_files: dict[str, str], current: dict[str, str]) -> dict[str, str]:
    """The form's files plus the current files it does not edit (accepted ``alternatives/``, and
    anything a later format adds), so saving in the web editor never drops what an import brought."""
    return {rel: text for rel, text in current.items() if not edited_by_form(rel)} | form_files


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else str(value)


def _same(old: dict[str, Any], wanted: dict[str, Any]) -> bool:
    limits = wanted.get("limits", {})
    expected_limits = Limits(
        time_s=float(limits.get("time_s", DEFAULT_LIMITS.time_s)),
        memory_mb=int(limits.get("memory_mb", DEFAULT_LIMITS.memory_mb)),
    )
    return (
        old["title"] == wanted["title"]
        and old["difficulty"] == wanted["difficulty"]
        and old["category"] == wanted["category"]
        and list(old["tags"]) == wanted["tags"]
        and old["premium"] == wanted["premium"]
        and old["entry_point"] == wanted["entry_point"]
        and old["limits"] == expected_limits
        and old["order"] == wanted.get("order", 0)
        and list(old["hints"]) == wanted["hints"]
    )


def _toml_string(value: str) -> str:
    return json.dumps(value, ensure_ascii=False)  # a JSON string is a valid TOML basic string


def render_toml(meta: dict[str, Any]) -> str:
    lines = [
        f"title = {_toml_string(meta['title'])}",
        f"difficulty = {_toml_string(meta['difficulty'])}",
        f"category = {_toml_string(meta['category'])}",
        "tags = [" + ", ".join(_toml_string(t) for t in meta["tags"]) + "]",
        f"premium = {'true' if meta['premium'] else 'false'}",
        f"entry_point = {_toml_string(meta['entry_point'])}",
    ]
    if meta.get("order"):
        lines.append(f"order = {meta['order']}")
    if meta.get("hints"):
        lines += ["hints = ["] + [f"  {_toml_string(h)}," for h in meta["hints"]] + ["]"]
    if meta.get("example_input") is not None:
        lines.append(f"example_input = {toml_value(meta['example_input'])}")
    limits = meta.get("limits") or {}
    if limits:
        lines += ["", "[limits]"] + [f"{key} = {value}" for key, value in limits.items()]
    return "\n".join(lines) + "\n"


def lf(text: str) -> str:
    return text.replace("\r\n", "\n").replace("\r", "\n")


def parse_form(data: Any) -> EditorForm:
    """The editor form from a submitted (multi-)dict of fields; text areas get LF line ends."""

    def text(name: str) -> str:
        value = data.get(name, "")
        return lf(value) if isinstance(value, str) else ""

    names = [v for v in data.getlist("mutant_name") if isinstance(v, str)]
    codes = [lf(v) for v in data.getlist("mutant_code") if isinstance(v, str)]
    if len(names) != len(codes):
        raise InvalidProblem("the mutant fields are incomplete: each mutant needs a name and code")
    return EditorForm(
        slug=text("slug").strip(),
        title=text("title"),
        difficulty=text("difficulty"),
        category=text("category"),
        tags=text("tags"),
        premium=data.get("premium") in ("on", "true", "1"),
        entry_point=text("entry_point"),
        time_s=text("time_s"),
        memory_mb=text("memory_mb"),
        order=text("order"),
        hints=[lf(v) for v in data.getlist("hint") if isinstance(v, str)][:MAX_HINTS],
        statement=text("statement"),
        learn=text("learn"),
        editorial=text("editorial"),
        starter=text("starter"),
        solution=text("solution"),
        tests=text("tests"),
        mutants=list(zip(names, codes, strict=True)),
        toml_source=text("toml_source"),
    )
