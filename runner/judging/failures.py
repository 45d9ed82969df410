"""One failure vocabulary: what property of a case failed, in the same words on every problem.

Every failed or errored case carries a :class:`Failure` (``CaseResult.failure``, as a dict): its
``kind`` (one of :data:`TITLES`), the words that say what the learner's code did, and what the
kind needs (the tolerance and the largest error for ``values``, the rule's id and sentence for
``rule``, the property the rule's check saw). ``CaseResult.message`` is made from it here
(:meth:`Failure.message`), so the page, ``/api/v1`` and the CLI read the same sentence and can
also act on the fields. A hidden case's words never hold its expected value.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

TITLES: dict[str, str] = {
    # what the returned value got wrong
    "shape": "Wrong shape",
    "dtype": "Wrong dtype",
    "device": "Wrong device",
    "non_finite": "Non-finite values",
    "values": "Values beyond tolerance",
    "type": "Wrong type or structure",
    "requires_grad": "Wrong requires_grad",
    "layout": "Wrong memory layout",
    # what the code did, as a check of the judge saw it
    "gradients": "Wrong gradients",
    "in_place": "Input modified in place",
    "storage": "View or copy",
    "optimizer": "Optimizer touched the wrong state",
    "hooks": "Hooks",
    "operations": "Operations",
    "rule": "Breaks rule",
    "left_state": "Torch state left changed",
    # how the run ended
    "exception": "Exception",
    "refused": "Value the judge cannot compare",
    "no_value": "No value",
    "time_limit": "Time limit exceeded",
    "memory_limit": "Memory limit exceeded",
    "output_limit": "Output limit exceeded",
    "not_run": "Not run",
    "judge_modified": "Judge modified",
}
# What a case's returned values got wrong: a case named after a rule that fails only these says so,
# not that the rule broke (the rule's check is what else the case observes).
VALUE_KINDS = frozenset({"shape", "dtype", "device", "non_finite", "values", "type", "no_value"})
# How a run ended rather than what a value was: never a property of the learner's result.
END_KINDS = frozenset({"exception", "refused", "time_limit", "memory_limit", "output_limit", "not_run"})


@dataclass
class Failure:
    kind: str
    detail: str  # what was seen, in words, without the title
    rule: str = ""  # kind "rule": the statement's rule that broke
    sentence: str = ""  # the statement's sentence tied to what broke (a rule's), or ""
    prop: str = ""  # kind "rule": the property its check saw fail (one of the other kinds)
    rtol: float | None = None  # kind "values": the case's tolerance
    atol: float | None = None
    max_error: float | None = None  # kind "values": the largest absolute error
    extra: dict[str, Any] = field(default_factory=dict)  # e.g. a counterexample's input text
    discrete: bool = False  # a count, flag or structure differs (runner.judging.compare.Mismatch)

    @property
    def title(self) -> str:
        if self.kind == "rule":
            return f"Breaks rule {self.rule}"
        if self.rule:  # e.g. an exception raised in a case that checks a rule
            return f"{TITLES.get(self.kind, 'Failed')} in a check of rule {self.rule}"
        return TITLES.get(self.kind, "Failed")

    def message(self) -> str:
        """The one sentence every surface shows: the title, what was seen, the tied statement sentence."""
        head = self.title
        if self.kind == "rule" and self.sentence and self.sentence not in self.detail:
            head += f" ({self.sentence})"  # unless what was seen already quotes it (op checks do)
        detail = self.detail.strip().rstrip(".")
        text = f"{head}: {detail}." if detail else f"{head}."
        if self.kind != "rule" and self.sentence:
            text += f" The statement says: “{self.sentence}”"
        return text

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"kind": self.kind, "title": self.title}
        if self.kind == "rule":
            out |= {"rule": self.rule, "sentence": self.sentence, "property": self.prop}
        elif self.rule:
            out["rule"] = self.rule
        if self.rtol is not None:  # JSON has no infinity: an unbounded error is null
            error = self.max_error if self.max_error is not None and math.isfinite(self.max_error) else None
            out |= {"rtol": self.rtol, "atol": self.atol, "max_error": error}
        return out | self.extra


def as_rule(failure: Failure, rule: str, sentence: str) -> Failure:
    """The failure of a case's rule check, named by the rule (the sentence is the rule's)."""
    return Failure(
        kind="rule",
        detail=failure.detail,
        rule=rule,
        sentence=sentence,
        prop=failure.kind,
        rtol=failure.rtol,
        atol=failure.atol,
        max_error=failure.max_error,
        extra=failure.extra,
    )
