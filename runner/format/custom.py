"""Custom input ("Run with my input"): the learner's own arguments, judged against the reference.

The host generates a tiny ``tests.py`` whose one public case calls the entry point with the
learner's arguments. The arguments travel as data: a JSON document embedded as a string literal
and ``json.loads``-ed in the sandbox, then turned into tensors by :func:`runner.format.inputs.materialise`,
so nothing the learner typed is ever executed as code. The reference runs that file in one sandbox
job (its value becomes the expected one, as at import) and the learner's code in another; the two
outputs are compared on the host like any public case. The reference's source reaches only its own
sandbox; the learner sees its output for their own input, never its code or traceback.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from runner.format.inputs import parse_arguments
from runner.verdict import Verdict

if TYPE_CHECKING:
    from runner.jobs import Expectations, JudgeResult

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
        example = next((c for c in expectations.cases if c.public), None)
        if example is None:
            return cls(arguments=arguments, reference=reference)
        return cls(arguments=arguments, reference=reference, rtol=example.rtol, atol=example.atol)


def tests_source(entry_point: str, arguments: dict[str, Any]) -> str:
    """The generated ``tests.py``: one public case calling ``entry_point(**arguments)``; when an
    argument requires gradients, the gradients of the output's sum reach them and are compared too
    (:func:`runner.format.inputs.with_gradients`), as the problems' own examples do."""
    if not entry_point.isidentifier():
        raise ValueError(f"entry point {entry_point!r} is not a Python identifier")
    document = json.dumps(parse_arguments(arguments), ensure_ascii=True)
    # A JSON string (ASCII, every quote and backslash escaped) is a valid Python string literal.
    literal = json.dumps(document, ensure_ascii=True)
    return (
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
