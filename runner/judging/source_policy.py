"""The source policy: what judged code may name, checked on the host before anything runs.

Exercises are about public PyTorch, so judged code (a learner's ``solution.py``, by every route,
and a problem's own references and mutants when it is validated) may use torch's public API and a
short list of plain-Python modules, and nothing of the machinery under them: the judge itself
(``runner``), the interpreter's introspection and loaders (``sys``, ``gc``, ``inspect``,
``importlib``, ``ctypes``, ``threading``, ``pickle``, ``marshal``, …), torch's private parts
(any ``_``-prefixed name) and the parts of its public API that reach the dispatcher or run code
from data (``torch.ops``, ``torch.library``, ``torch.jit``, ``torch.load``, …), and dynamic code
(``exec``, ``eval``, ``compile``, ``getattr`` with a computed name, dunder escapes such as
``__class__`` or ``__globals__``).

It is an allow-list where one is sound (the modules that may be imported; the dunder attributes
that may be read) and a deny-list where the allowed space is torch's public API (its names are
not known without importing torch, which the host does not do). A name used through an alias
(``t = torch`` is refused: a module is only used through its names), ``from torch import _C``,
``import torch._C as c``, a constant ``getattr``/``hasattr`` name and a ``match`` class pattern's
attribute names are all read as the attribute they name. Python normalises identifiers (NFKC)
while parsing, so ``ｅｘｅｃ`` is ``exec`` here too.

:func:`check` parses and walks the source once (what it costs: docs/benchmarks.md) and
returns the first :class:`Refusal` (line, column, rule, a message for the learner) or None. A
problem may allow what it needs (``[source_policy] allow`` in ``problem.toml``, with a reason; see
docs/authoring.md). The rules themselves, as data with their reasons, are in
``runner.judging.source_rules``; the walk that applies them is ``runner.judging.source_walk``.
"""

from __future__ import annotations

import ast
from collections.abc import Collection

from runner.jobs import CASE_NOT_RUN, CaseExpectation, CaseResult, JudgeResult
from runner.judging.failures import TITLES
from runner.judging.source_rules import KILLED_BY_POLICY as KILLED_BY_POLICY  # validation's word for it
from runner.judging.source_rules import NEVER_ALLOWED, NEVER_ALLOWED_NAMES, SETTERS_THAT_CANNOT_RUN
from runner.judging.source_walk import Refusal as Refusal
from runner.judging.source_walk import SourceWalk
from runner.verdict import Verdict

TOO_DEEP = "the code is nested too deeply to be checked: write the expression in simpler steps."


class PolicyError(ValueError):
    """A problem's ``[source_policy]`` table is malformed or allows what cannot be allowed."""


def parse_allow(table: object) -> tuple[str, ...]:
    """The problem.toml ``[source_policy]`` table → its allowances (dotted names), validated."""
    if table is None:
        return ()
    if not isinstance(table, dict):
        raise PolicyError('[source_policy] must be a table with allow = [...] and reason = "..."')
    unknown = set(table) - {"allow", "reason"}
    if unknown:
        raise PolicyError(f"unknown keys in [source_policy]: {', '.join(sorted(unknown))}")
    allow = table.get("allow", [])
    if not isinstance(allow, list) or not all(isinstance(a, str) for a in allow):
        raise PolicyError('source_policy.allow must be a list of names, e.g. allow = ["numpy"]')
    reason = table.get("reason", "")
    if allow and (not isinstance(reason, str) or not reason.strip()):
        raise PolicyError("source_policy.reason must say why the problem needs what it allows")
    for name in allow:
        parts = name.split(".")
        if not all(p.isidentifier() for p in parts):
            raise PolicyError(f"source_policy.allow: {name!r} is not a dotted Python name")
        if parts[0] in NEVER_ALLOWED:
            raise PolicyError(f"source_policy.allow: {name!r} is the judge itself and cannot be allowed")
        if parts[0] in NEVER_ALLOWED_NAMES:
            raise PolicyError(
                f"source_policy.allow: {name!r} cannot be allowed: {NEVER_ALLOWED_NAMES[parts[0]]}"
            )
        setter = next((p for p in parts if p in SETTERS_THAT_CANNOT_RUN), None)
        if setter is not None:
            raise PolicyError(
                f"source_policy.allow: {name!r} cannot be allowed: {SETTERS_THAT_CANNOT_RUN[setter]}"
            )
    return tuple(sorted(set(allow)))


def check(source: str, allow: Collection[str] = ()) -> Refusal | None:
    """The first rule ``source`` breaks, or None. A source with a syntax error is left to the
    sandbox, which reports it where the learner expects it; one the host cannot even parse for its
    size or depth is refused (what cannot be read cannot be let through unread)."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return None
    except (RecursionError, MemoryError):
        return Refusal(1, 1, "depth", TOO_DEEP)
    try:
        found = SourceWalk(tree, frozenset(allow)).refusals()
    except (RecursionError, MemoryError):
        return Refusal(1, 1, "depth", TOO_DEEP)
    # The first in the file (a walk meets an outer expression before the part of it that is refused).
    return min(found, key=lambda r: (r.line, r.column, r.end), default=None)


def refused_result(refusal: Refusal, selected: Collection[CaseExpectation]) -> JudgeResult:
    """The verdict of code the policy refuses: ``compile_error`` (the code was checked like a
    compiler checks it, before anything ran), the line for the editor, every case not run."""
    message = f"Line {refusal.line}: {refusal.message}"
    cases = [
        CaseResult(
            name=c.name,
            public=c.public,
            status=CASE_NOT_RUN,
            message=f"Not run: {message}",  # also the editor's note on the line
            line=refusal.line,
            column=refusal.column,
            failure={"kind": "not_run", "title": TITLES["not_run"]},
        )
        for c in selected
    ]
    return JudgeResult(
        verdict=Verdict.COMPILE_ERROR, passed=0, total=len(cases), cases=cases, message=message
    )
