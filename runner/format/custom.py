"""Custom input ("Run with my input"): the learner's own arguments, judged against the reference.

The host generates a tiny ``tests.py`` whose one public case calls the entry point with the
learner's arguments. The arguments travel as data: a JSON document embedded as a string literal
and ``json.loads``-ed in the sandbox, then turned into tensors by :func:`runner.format.inputs.materialise`,
so nothing the learner typed is ever executed as code. The reference runs that file in one sandbox
job (its value becomes the expected one, as at import) and the learner's code in another; the two
outputs are compared on the host like any public case. The reference's source reaches only its own
sandbox; the learner sees its output for their own input, never its code or traceback.

How-rules that hold whatever a case's values (a problem's ``op_rules_for_every_case``) hold here
too: for such a problem the generated file starts with the problem's own ``tests.py`` (for its
rules; its cases are forgotten), so the one case runs inside them, and a rule it breaks is named
as Run names it. The rules a problem checks only in its own cases, on their own data (an input
left unmodified, a hook removed), are Run's and Submit's: :func:`case_bound_rules` says which, and
the custom result says so (:func:`checked_elsewhere`).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from runner.format.inputs import parse_arguments
from runner.verdict import Verdict

if TYPE_CHECKING:
    from runner.jobs import CaseExpectation, Expectations, JudgeResult

CASE_NAME = "your_input"


@dataclass(frozen=True)
class CustomInput:
    """What a custom job carries besides the learner's code: the arguments and the reference source."""

    arguments: dict[str, Any]
    reference: str
    # The problem's own tolerances (its example's): the custom run judges as Run does. None: the
    # generated case's defaults (runner.testing.case).
    rtol: float | None = None
    atol: float | None = None

    def to_dict(self) -> dict[str, Any]:
        tolerances = {"rtol": self.rtol, "atol": self.atol} if self.rtol is not None else {}
        return {"arguments": self.arguments, "reference": self.reference} | tolerances

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> CustomInput:
        # Checked again where the job is run: a job from a broker is data like any other.
        rtol, atol = data.get("rtol"), data.get("atol")
        return cls(
            arguments=parse_arguments(data["arguments"]),
            reference=str(data["reference"]),
            rtol=float(rtol) if isinstance(rtol, int | float) and rtol >= 0 else None,
            atol=float(atol) if isinstance(atol, int | float) and atol >= 0 else None,
        )

    @classmethod
    def judged_like(
        cls, arguments: dict[str, Any], reference: str, expectations: Expectations
    ) -> CustomInput:
        """Custom input judged with the tolerances of the problem's example (its first public case)."""
        example = _example(expectations)
        if example is None:
            return cls(arguments=arguments, reference=reference)
        return cls(arguments=arguments, reference=reference, rtol=example.rtol, atol=example.atol)


def _example(expectations: Expectations) -> CaseExpectation | None:
    return next((c for c in expectations.cases if c.public), None)


def problem_wide_rules(expectations: Expectations) -> tuple[str, ...]:
    """The ids of the statement rules the problem's ``op_rules_for_every_case`` enforce, in order:
    every case runs inside them, so the reference's run of its example declared them."""
    example = _example(expectations)
    checks = (example.observed or {}).get("checks") if example is not None else None
    if not isinstance(checks, list):
        return ()
    return tuple(
        dict.fromkeys(str(c[1]) for c in checks if isinstance(c, list) and len(c) == 2 and c[0] == "rule")
    )


def case_bound_rules(expectations: Expectations) -> tuple[str, ...]:
    """The statement rules only the problem's own cases check, on their own data: those custom
    input does not apply (every rule a case enforces, but the problem-wide ones)."""
    wide = set(problem_wide_rules(expectations))
    return tuple(dict.fromkeys(c.rule for c in expectations.cases if c.rule and c.rule not in wide))


def checked_elsewhere(rules: tuple[str, ...] | list[str]) -> str:
    """What a custom result says about the rules it does not check ("" when there are none)."""
    if not rules:
        return ""
    return f"How-rules ({', '.join(rules)}) are checked by Run and Submit."


_ELSEWHERE = re.compile(r"How-rules \(([a-z0-9, -]+)\) are checked by Run and Submit\.")


def rules_checked_elsewhere(message: str) -> list[str]:
    """The rule ids a custom result's message says Run and Submit check (:func:`checked_elsewhere`)."""
    found = _ELSEWHERE.search(message or "")
    return [r.strip() for r in found.group(1).split(",") if r.strip()] if found else []


def rule_sentences(expectations: Expectations) -> dict[str, str]:
    """Each statement rule's sentence, as the problem's cases carry it (rule id -> sentence)."""
    return {c.rule: c.rule_sentence for c in expectations.cases if c.rule}


def tests_source(entry_point: str, arguments: dict[str, Any], problem_tests: str = "") -> str:
    """The generated ``tests.py``: one public case calling ``entry_point(**arguments)``; when an
    argument requires gradients, the gradients of the output's sum reach them and are compared too
    (:func:`runner.format.inputs.with_gradients`), as the problems' own examples do.

    ``problem_tests``: the problem's ``tests.py``, given when it declares problem-wide op rules. It
    runs first, for those rules (its cases are then forgotten), so the one case runs inside them."""
    if not entry_point.isidentifier():
        raise ValueError(f"entry point {entry_point!r} is not a Python identifier")
    document = json.dumps(parse_arguments(arguments), ensure_ascii=True)
    # A JSON string (ASCII, every quote and backslash escaped) is a valid Python string literal.
    literal = json.dumps(document, ensure_ascii=True)
    rules = (
        f"{problem_tests.rstrip()}\n\n\n# Custom input (runner.format.custom): the rules above, one case.\n"
        "from runner.testing import forget_cases\n\n"
        "forget_cases()\n\n"
        if problem_tests
        else ""
    )
    return rules + (
        "import json\n\n"
        "from runner.format.inputs import materialise, with_gradients\n"
        "from runner.testing import case\n\n"
        f"ARGS = json.loads({literal})\n\n\n"
        f"@case(public=True, name={CASE_NAME!r})\n"
        f"def {CASE_NAME}(solution):\n"
        "    args = materialise(ARGS)\n"
        f"    out = solution.{entry_point}(**args)\n"
        "    return with_gradients(out, args)\n"
    )


_REFERENCE_LOCATION = re.compile(
    r"\s*\(solution\.py, line \d+\)|solution\.py:\s*|the reference fails case \w+:\s*"
)


def reference_refused(detail: str) -> JudgeResult:
    """The reference cannot run on these arguments: the input does not fit the problem.

    Only the error's text is shown (where in the reference it happened is left out); the learner's
    code is not run, since there is nothing to compare it with.
    """
    from runner import jobs

    reason = _REFERENCE_LOCATION.sub("", detail).strip()[:500] or "it failed"
    message = f"The reference solution cannot run on this input, so it does not fit the problem: {reason}"
    case = jobs.CaseResult(name=CASE_NAME, public=True, status=jobs.CASE_NOT_RUN, message=message)
    return jobs.JudgeResult(verdict=Verdict.RUNTIME_ERROR, passed=0, total=1, cases=[case], message=message)


def with_problem_ops(custom: Expectations, problem: Expectations) -> Expectations:
    """The custom case's expectations with what the problem-wide ``allow_ops`` blocks allow in any
    of the problem's cases added to what the reference used on the learner's input: the same
    blocks, first in every case, so the accepted alternatives (``alternatives/``) count here too.
    Without such blocks, ``custom`` itself."""
    allowed: list[set[str]] = []
    for case in custom.cases:
        used = (case.observed or {}).get("ops_used")
        if isinstance(used, list):
            allowed = [set(block) for block in used if isinstance(block, list)]
    if not allowed:
        return custom
    for case in problem.cases:
        used = (case.observed or {}).get("ops_used")
        if isinstance(used, list):
            for block, ops in zip(allowed, used, strict=False):  # the problem-wide blocks come first
                block.update(str(op) for op in ops if isinstance(ops, list))
    merged = [sorted(block) for block in allowed]
    cases = tuple(
        replace(c, observed={**c.observed, "ops_used": merged})
        if c.observed and "ops_used" in c.observed
        else c
        for c in custom.cases
    )
    return replace(custom, cases=cases)


def with_note(result: JudgeResult, rules: tuple[str, ...]) -> JudgeResult:
    """A custom result saying which of the problem's rules it does not check (:func:`checked_elsewhere`)."""
    note = checked_elsewhere(rules)
    if note and result.verdict != Verdict.INTERNAL_ERROR:
        result.message = f"{result.message} {note}".strip()
    return result
