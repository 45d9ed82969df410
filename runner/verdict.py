"""The one verdict type: every verdict's name, label, precedence and what it tells the learner.

The app's labels, the API schema, the CLI and (through the submission view) the page script all
read this enum; nothing else lists verdicts. A ``StrEnum``, so a verdict is its plain string in
JSON, in the database and in comparisons (``Verdict.ACCEPTED == "accepted"``).
"""

from __future__ import annotations

from enum import StrEnum


class Verdict(StrEnum):
    ACCEPTED = "accepted"
    WRONG_ANSWER = "wrong_answer"
    RUNTIME_ERROR = "runtime_error"
    TIME_LIMIT_EXCEEDED = "time_limit_exceeded"
    MEMORY_LIMIT_EXCEEDED = "memory_limit_exceeded"
    OUTPUT_LIMIT_EXCEEDED = "output_limit_exceeded"
    COMPILE_ERROR = "compile_error"
    INTERNAL_ERROR = "internal_error"

    @property
    def label(self) -> str:
        """As pages and the CLI show it: ``Wrong Answer``."""
        return _LABELS[self]

    @property
    def explanation(self) -> str:
        """What the verdict means for the learner and what to look at; empty where the message says it."""
        return _EXPLANATIONS[self]

    @property
    def precedence(self) -> int:
        """Which verdict a run gets when several things went wrong: the lowest number wins.

        A limit ends the whole run (its cases may not even have run); then a compile error, an
        error raised by a case, and only then wrong values. ``runner.judging.results.build_result``
        applies this order.
        """
        return _PRECEDENCE.index(self)

    @classmethod
    def parse(cls, value: str | None) -> Verdict | None:
        """The verdict named ``value``; None for no verdict yet or a name this version does not know."""
        try:
            return cls(value) if value else None
        except ValueError:
            return None


_LABELS = {
    Verdict.ACCEPTED: "Accepted",
    Verdict.WRONG_ANSWER: "Wrong Answer",
    Verdict.RUNTIME_ERROR: "Runtime Error",
    Verdict.TIME_LIMIT_EXCEEDED: "Time Limit Exceeded",
    Verdict.MEMORY_LIMIT_EXCEEDED: "Memory Limit Exceeded",
    Verdict.OUTPUT_LIMIT_EXCEEDED: "Output Limit Exceeded",
    Verdict.COMPILE_ERROR: "Compile Error",
    Verdict.INTERNAL_ERROR: "Internal Error",
}
_EXPLANATIONS = {
    Verdict.ACCEPTED: "",
    Verdict.WRONG_ANSWER: "",
    Verdict.RUNTIME_ERROR: "",
    Verdict.TIME_LIMIT_EXCEEDED: (
        "Look for an endless loop, or Python loops over tensor elements that a vectorised torch "
        "operation would do at once."
    ),
    Verdict.MEMORY_LIMIT_EXCEEDED: (
        "Look for very large tensors (check the shapes you create) or results kept in a growing list."
    ),
    Verdict.OUTPUT_LIMIT_EXCEEDED: "Remove debugging prints inside loops.",
    Verdict.COMPILE_ERROR: "",
    Verdict.INTERNAL_ERROR: "The platform failed, not your code: submit again, or ask for a re-judge.",
}
_PRECEDENCE = (
    Verdict.INTERNAL_ERROR,
    Verdict.OUTPUT_LIMIT_EXCEEDED,
    Verdict.MEMORY_LIMIT_EXCEEDED,
    Verdict.TIME_LIMIT_EXCEEDED,
    Verdict.COMPILE_ERROR,
    Verdict.RUNTIME_ERROR,
    Verdict.WRONG_ANSWER,
    Verdict.ACCEPTED,
)
