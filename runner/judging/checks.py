"""On the host: one case's expected and actual values to a pass, or a failure message that teaches.

Plain values keep the rule they always had (the first difference, shown for public cases only).
A check value (:mod:`runner.records.check_value`) is compared on its ``compared`` part, with the case's
tolerances; when that differs, the message is composed here, from the kind of check, the quoted
sentence of the statement the reference's value declares, and what the learner's run measured
(``seen``). A hidden case's message never contains its expected value: it says what was checked and
what the learner's code did (a modified index, a finite-difference error, their own output on the
smallest failing input — whose description comes from the reference's run, not from the learner's).

Everything read from the learner's value is untrusted: read defensively and cleaned
(:func:`runner.records.text.clean`) before it becomes part of a message. The words per kind of
check are composed in :mod:`runner.judging.check_words`.
"""

from __future__ import annotations

from typing import Any

from runner.judging import check_words as words
from runner.judging import compare
from runner.judging.failures import VALUE_KINDS, Failure
from runner.records import values
from runner.records.check_value import unwrap

PIECE_CHARS = words.PIECE_CHARS


def failure(expected: Any, actual: Any, rtol: float, atol: float, public: bool) -> Failure | None:
    """None when ``actual`` matches ``expected``; else what failed, in the failure vocabulary."""
    exp = unwrap(expected)
    if exp is None:
        mismatch = compare.compare(expected, actual, rtol, atol)
        return None if mismatch is None else of_mismatch(mismatch, public, rtol, atol)
    act = unwrap(actual)
    kind = str(exp.get("kind", "check"))
    if act is None or act.get("kind") != kind:
        return Failure(
            "no_value", f"the case did not produce the {TITLES.get(kind, 'check').lower()}'s result"
        )
    mismatch = compare.compare(exp.get("compared"), act.get("compared"), rtol, atol)
    if mismatch is None:
        return None
    given = None
    if kind == "family":  # the counterexample is chosen once, for the words and the input
        choice = words.family_choice(exp, act, rtol, atol)
        problems = words.family_words(exp, act, choice, rtol, atol, public)
        given = words.counterexample(exp, choice)
    else:
        problems = words.COMPOSERS.get(kind, words.generic)(exp, act, rtol, atol, public) or [("values", "")]
    prop = problems[0][0]
    seen = "; ".join(text for _, text in problems[:4] if text) or "the result differs from the expected one"
    # No sentence of the statement is quoted here: the one quoted is the rule's, when the case's rule
    # broke (runner.judging.results), never a check's constraint that may be about something else
    # (a missing bias correction is not the rule about p.grad).
    found = Failure(prop, seen, extra={"input": given} if given else {})
    # a family's hidden message shows the learner's output: no error beside it
    shows_output = kind == "family" and not public
    if prop in VALUE_KINDS and mismatch.kind == prop and mismatch.max_error is not None and not shows_output:
        found.rtol, found.atol, found.max_error = rtol, atol, mismatch.max_error
    return found


def of_mismatch(mismatch: compare.Mismatch, public: bool, rtol: float, atol: float) -> Failure:
    """A plain value's first difference as a failure (the expected value only when ``public``)."""
    found = Failure(mismatch.kind, words.piece(mismatch.words(public), 1000), discrete=mismatch.discrete)
    if mismatch.max_error is not None:
        found.rtol, found.atol, found.max_error = rtol, atol, mismatch.max_error
    return found


def display(value: Any) -> str:
    """How a value is shown for a public case: a check shows what it compares, not its measurements."""
    payload = unwrap(value)
    return values.to_display(payload.get("compared") if payload is not None else value)


TITLES = {
    "gradients": "Gradient check",
    "integrity": "Input and output check",
    "family": "Random inputs",
    "optimizer": "Optimizer check",
}
