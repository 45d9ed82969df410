"""The problem folder format: ``problems/<slug>/`` as instructors write it.

::

    problems/<slug>/
      problem.toml    title, difficulty, category, tags, premium, entry_point, order, hints, [limits]
                      (time_s, memory_mb, threads),
                      [example_input] (the example's arguments as data, for "Run with my input")
      statement.md    shown to everyone
      learn.md        the explanation section (a preview only, for locked premium problems)
      editorial.md    optional: approaches, complexity, pitfalls (opens after solving or giving up)
      starter.py      what the editor starts with
      solution.py     the reference solution (never shown to learners)
      tests.py        hidden test cases, declared with ``runner.testing.case``
      mutants/*.py    known-wrong solutions the tests must reject (optional); front matter
                      '# rule: id' / '# kind: cheat' ties one to a statement rule (runner.format.rules)
      alternatives/*.py  accepted alternative solutions (optional): they must be accepted, and the
                      operations they use are allowed too where tests.py declares allow_ops

Reading refuses symlinks anywhere in the folder, so a problem cannot smuggle in a host file.
"""

from __future__ import annotations

import json
import os
import re
import stat
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from runner.format.fields import one_line_error
from runner.format.inputs import InputError, parse_arguments
from runner.jobs import Expectations, Job, Limits, Mode
from runner.judging.source_policy import PolicyError, parse_allow

DIFFICULTIES = ("easy", "medium", "hard")
SLUG_RE = re.compile(r"^[a-z0-9][a-z0-9-]{1,79}$")
IDENT_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
REQUIRED_FILES = ("problem.toml", "statement.md", "learn.md", "starter.py", "solution.py", "tests.py")
EDITORIAL_FILE = "editorial.md"  # optional
MAX_FILE_BYTES = 512 * 1024

# The platform's bounds for per-problem limits.
MAX_TIME_S = 30.0
MAX_MEMORY_MB = 4096
MIN_MEMORY_MB = 256
MAX_HINTS = 3
MAX_HINT_CHARS = 2000


class ProblemFormatError(ValueError):
    """A problem folder does not follow the format. ``file`` and ``line`` locate the cause."""

    def __init__(self, message: str, file: str = "", line: int | None = None) -> None:
        self.file = file
        self.line = line
        where = file + (f":{line}" if line else "")
        super().__init__(f"{where}: {message}" if where else message)
        self.message = message


@dataclass(frozen=True)
class ProblemFiles:
    """A problem as read from its folder (or rebuilt from the database)."""

    slug: str
    title: str
    difficulty: str
    category: str
    tags: tuple[str, ...]
    premium: bool
    entry_point: str
    limits: Limits
    statement: str
    learn: str
    starter: str
    solution: str
    tests: str
    mutants: dict[str, str] = field(default_factory=dict)
    # Accepted alternative solutions (``alternatives/<name>.py``): the operations they dispatch are
    # allowed too wherever tests.py declares allow_ops (runner.engine.Runner.compute_expectations).
    alternatives: dict[str, str] = field(default_factory=dict)
    toml_source: str = ""
    order: int = 0  # position within its category (its track); 0 = after the numbered ones
    hints: tuple[str, ...] = ()  # progressive hints (Markdown), revealed one at a time
    # The example's arguments as data (runner.format.inputs format); None: the entry point takes none
    # that can be written as data, and custom input is not offered.
    example_input: dict[str, Any] | None = None
    # What the problem allows beyond the source policy (runner.judging.source_policy; [source_policy]).
    source_allow: tuple[str, ...] = ()
    editorial: str = ""  # editorial.md: "" when the problem has none

    def job(self, expectations: Expectations, code: str, mode: Mode, job_id: str = "") -> Job:
        """The judge job for ``code`` against this problem: the one place a job is built."""
        return Job(
            entry_point=self.entry_point,
            tests_source=self.tests,
            code=code,
            mode=mode,
            expectations=expectations,
            limits=self.limits,
            job_id=job_id,
            source_allow=self.source_allow,
        )

    def files(self) -> dict[str, str]:
        """The folder's files as relative path -> text: what ``write_problem_dir`` writes."""
        out = {
            "problem.toml": self.toml_source or render_toml(self),
            "statement.md": self.statement,
            "learn.md": self.learn,
            "starter.py": self.starter,
            "solution.py": self.solution,
            "tests.py": self.tests,
        }
        if self.editorial:
            out[EDITORIAL_FILE] = self.editorial
        for name, source in sorted(self.mutants.items()):
            out[f"mutants/{name}"] = source
        for name, source in sorted(self.alternatives.items()):
            out[f"alternatives/{name}"] = source
        return out


def _read_text(path: Path, rel: str) -> str:
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        raise ProblemFormatError("file is missing", rel) from None
    if stat.S_ISLNK(st.st_mode):
        raise ProblemFormatError("symlinks are not allowed in a problem folder", rel)
    if not stat.S_ISREG(st.st_mode):
        raise ProblemFormatError("not a regular file", rel)
    if st.st_size > MAX_FILE_BYTES:
        raise ProblemFormatError(f"file is larger than {MAX_FILE_BYTES // 1024} KiB", rel)
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
    with os.fdopen(fd, "rb") as fh:
        data = fh.read(MAX_FILE_BYTES + 1)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ProblemFormatError(f"not UTF-8 text ({exc.reason} at byte {exc.start})", rel) from None


def parse_metadata(toml_source: str, slug: str) -> dict[str, Any]:
    """Validate ``problem.toml`` and return its normalised fields."""
    rel = "problem.toml"
    try:
        data = tomllib.loads(toml_source)
    except tomllib.TOMLDecodeError as exc:
        found = re.search(r"at line (\d+)", str(exc))  # Python 3.11's tomllib has no lineno attribute
        line = getattr(exc, "lineno", None) or (int(found.group(1)) if found else None)
        raise ProblemFormatError(f"invalid TOML: {exc}", rel, line) from None

    def need(key: str, kind: type, hint: str) -> Any:
        if key not in data:
            raise ProblemFormatError(f"missing key {key!r} ({hint})", rel)
        value = data[key]
        if not isinstance(value, kind) or (isinstance(value, str) and not value.strip()):
            raise ProblemFormatError(f"{key!r} must be {hint}", rel)
        return value

    title = need("title", str, 'a non-empty string, e.g. title = "Register a Forward Hook"')
    difficulty = need("difficulty", str, "one of easy, medium, hard")
    if difficulty not in DIFFICULTIES:
        raise ProblemFormatError(f"difficulty {difficulty!r} must be one of easy, medium, hard", rel)
    category = need("category", str, 'a non-empty string, e.g. category = "PyTorch Advanced"')
    tags = data.get("tags", [])
    if not isinstance(tags, list) or not all(isinstance(t, str) and t.strip() for t in tags):
        raise ProblemFormatError('tags must be a list of strings, e.g. tags = ["hooks"]', rel)
    for key, value in (("title", title), ("category", category), *(("tags", tag) for tag in tags)):
        error = one_line_error(key, value.strip())
        if error is not None:
            raise ProblemFormatError(error, rel)
    premium = data.get("premium", False)
    if not isinstance(premium, bool):
        raise ProblemFormatError("premium must be true or false", rel)
    entry_point = need("entry_point", str, "the name of the function learners define")
    if not IDENT_RE.match(entry_point):
        raise ProblemFormatError(f"entry_point {entry_point!r} is not a Python identifier", rel)
    raw_limits = data.get("limits", {})
    if not isinstance(raw_limits, dict):
        raise ProblemFormatError("[limits] must be a table with time_s, memory_mb and/or threads", rel)
    unknown = set(raw_limits) - {"time_s", "memory_mb", "threads"}
    if unknown:
        raise ProblemFormatError(f"unknown keys in [limits]: {', '.join(sorted(unknown))}", rel)
    limits_kwargs: dict[str, Any] = {}
    if "time_s" in raw_limits:
        t = raw_limits["time_s"]
        if isinstance(t, bool) or not isinstance(t, int | float) or not 0 < t <= MAX_TIME_S:
            raise ProblemFormatError(f"limits.time_s must be a number in (0, {MAX_TIME_S}]", rel)
        limits_kwargs["time_s"] = float(t)
    if "memory_mb" in raw_limits:
        m = raw_limits["memory_mb"]
        if isinstance(m, bool) or not isinstance(m, int) or not MIN_MEMORY_MB <= m <= MAX_MEMORY_MB:
            raise ProblemFormatError(
                f"limits.memory_mb must be an integer in [{MIN_MEMORY_MB}, {MAX_MEMORY_MB}]", rel
            )
        limits_kwargs["memory_mb"] = m
    if "threads" in raw_limits:
        if not isinstance(raw_limits["threads"], bool):
            raise ProblemFormatError(
                "limits.threads must be true or false (whether the judged code may start threads "
                "and processes)",
                rel,
            )
        limits_kwargs["threads"] = raw_limits["threads"]
    order = data.get("order", 0)
    if isinstance(order, bool) or not isinstance(order, int) or not 0 <= order <= 10_000:
        raise ProblemFormatError("order must be an integer in [0, 10000] (position within the track)", rel)
    hints = data.get("hints", [])
    if (
        not isinstance(hints, list)
        or len(hints) > MAX_HINTS
        or not all(isinstance(h, str) and h.strip() and len(h) <= MAX_HINT_CHARS for h in hints)
    ):
        raise ProblemFormatError(
            f"hints must be a list of at most {MAX_HINTS} non-empty strings of at most "
            f"{MAX_HINT_CHARS} characters, from the gentlest to the most revealing",
            rel,
        )
    example_input = None
    if "example_input" in data:
        try:
            example_input = parse_arguments(data["example_input"], "example_input")
        except InputError as exc:
            raise ProblemFormatError(str(exc), rel) from None
    try:
        source_allow = parse_allow(data.get("source_policy"))
    except PolicyError as exc:
        raise ProblemFormatError(str(exc), rel) from None
    known = {
        "source_policy",
        "title",
        "difficulty",
        "category",
        "tags",
        "premium",
        "entry_point",
        "limits",
        "order",
        "hints",
        "example_input",
    }
    extra = set(data) - known
    if extra:
        raise ProblemFormatError(f"unknown keys: {', '.join(sorted(extra))}", rel)
    if not SLUG_RE.match(slug):
        raise ProblemFormatError(
            f"folder name {slug!r} is not a valid slug (lowercase letters, digits, dashes)", slug
        )
    return {
        "slug": slug,
        "title": title.strip(),
        "difficulty": difficulty,
        "category": category.strip(),
        "tags": tuple(t.strip() for t in tags),
        "premium": premium,
        "entry_point": entry_point,
        "limits": Limits(**limits_kwargs),
        "order": order,
        "hints": tuple(h.strip() for h in hints),
        "example_input": example_input,
        "source_allow": source_allow,
    }


def build_problem(slug: str, files: dict[str, str]) -> ProblemFiles:
    """Build a problem from relative-path -> text (a folder, a zip, or an editor form)."""
    for name in REQUIRED_FILES:
        if name not in files:
            raise ProblemFormatError("file is missing", name)
    meta = parse_metadata(files["problem.toml"], slug)
    mutants: dict[str, str] = {}
    alternatives: dict[str, str] = {}
    for rel, text in files.items():
        if rel in REQUIRED_FILES or rel == EDITORIAL_FILE:
            continue
        if rel.startswith("mutants/") and rel.endswith(".py") and rel.count("/") == 1:
            mutants[rel.removeprefix("mutants/")] = text
        elif rel.startswith("alternatives/") and rel.endswith(".py") and rel.count("/") == 1:
            alternatives[rel.removeprefix("alternatives/")] = text
        else:
            raise ProblemFormatError("unexpected file in a problem folder", rel)
    return ProblemFiles(
        **meta,
        statement=files["statement.md"],
        learn=files["learn.md"],
        starter=files["starter.py"],
        solution=files["solution.py"],
        tests=files["tests.py"],
        mutants=mutants,
        alternatives=alternatives,
        toml_source=files["problem.toml"],
        editorial=files.get(EDITORIAL_FILE, ""),
    )


def read_problem_files(folder: str | Path) -> dict[str, str]:
    """Read a problem folder's files, refusing symlinks and anything unexpected."""
    root = Path(folder)
    st = os.lstat(root)
    if stat.S_ISLNK(st.st_mode) or not stat.S_ISDIR(st.st_mode):
        raise ProblemFormatError("a problem must be a real directory", str(root))
    files: dict[str, str] = {}
    for entry in sorted(os.listdir(root)):
        path = root / entry
        est = os.lstat(path)
        if stat.S_ISLNK(est.st_mode):
            raise ProblemFormatError("symlinks are not allowed in a problem folder", entry)
        if entry in ("mutants", "alternatives") and stat.S_ISDIR(est.st_mode):
            for name in sorted(os.listdir(path)):
                if name == "__pycache__":
                    continue
                files[f"{entry}/{name}"] = _read_text(path / name, f"{entry}/{name}")
        elif entry in ("__pycache__",) or entry.startswith("."):
            continue
        else:
            files[entry] = _read_text(path, entry)
    return files


def load_problem_dir(folder: str | Path) -> ProblemFiles:
    """Load and validate the format of ``problems/<slug>/`` (running it is validation's job)."""
    root = Path(folder)
    return build_problem(root.name, read_problem_files(root))


def write_problem_dir(problem: ProblemFiles, folder: str | Path) -> None:
    """Write a problem folder exactly as :meth:`ProblemFiles.files` describes it."""
    root = Path(folder)
    root.mkdir(parents=True, exist_ok=True)
    for rel, text in problem.files().items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if path.is_symlink():
            raise ProblemFormatError("refusing to write through a symlink", rel)
        path.write_text(text, encoding="utf-8")


def discover_problems(bank: str | Path) -> list[Path]:
    """Every problem folder in a bank directory, sorted by name."""
    root = Path(bank)
    return sorted(
        p for p in root.iterdir() if p.is_dir() and not p.is_symlink() and (p / "problem.toml").exists()
    )


def toml_value(value: Any) -> str:
    """An inline TOML value for the JSON-like data of ``runner.format.inputs`` (no null in TOML)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, list):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{json.dumps(k)} = {toml_value(v)}" for k, v in value.items()) + " }"
    raise ValueError(f"{value!r} cannot be written in TOML")


def render_toml(problem: ProblemFiles) -> str:
    def q(s: str) -> str:
        return json.dumps(s, ensure_ascii=False)  # a JSON string is a valid TOML basic string

    lines = [
        f"title = {q(problem.title)}",
        f"difficulty = {q(problem.difficulty)}",
        f"category = {q(problem.category)}",
        "tags = [" + ", ".join(q(t) for t in problem.tags) + "]",
        f"premium = {'true' if problem.premium else 'false'}",
        f"entry_point = {q(problem.entry_point)}",
    ]
    if problem.order:
        lines.append(f"order = {problem.order}")
    if problem.hints:
        lines.append("hints = [" + ", ".join(q(h) for h in problem.hints) + "]")
    if problem.example_input is not None:
        lines.append(f"example_input = {toml_value(problem.example_input)}")
    lines += [
        "",
        "[limits]",
        f"time_s = {problem.limits.time_s}",
        f"memory_mb = {problem.limits.memory_mb}",
    ]
    if problem.limits.threads:
        lines.append("threads = true")
    return "\n".join(lines) + "\n"
