"""The one view of a submission: what every surface shows of it.

:class:`SubmissionView` is built once from a stored row (:meth:`SubmissionView.of`) and served
as it is by the page's JSON API (``/api``, where the per-case list is ``cases``), the REST API
(``/api/v1``, the response model, where it is ``tests`` by its serialisation alias), the
submission page and the page script. :class:`SubmissionSummary` is the one history-row view.

Stored text is cleaned again on the way out (``runner.records.text``): rows written before the output
rule existed may hold NUL, lone surrogates or terminal escapes, and a view must never fail.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import AliasChoices, BaseModel, ConfigDict, Field

from app.kit.markdown import render_message
from app.kit.runner import display_value
from app.submissions.models import CUSTOM, Submission
from runner.format.custom import rules_checked_elsewhere
from runner.records.text import clean_value
from runner.verdict import Verdict

Status = Literal["queued", "running", "finished"]
FAILED_STATUSES = ("failed", "error")
# What a locked view says instead of the judge's words (app.submissions.gate).
LOCKED_MESSAGE = (
    "This is a Premium problem: its test cases' values and the judge's messages about them are shown "
    "with Premium. Your code, the verdict and which cases passed stay yours."
)
Mode = Literal["run", "submit", "custom"]


def _display(value: Any) -> str | None:
    """The runner sends public values as display text already; encoded values are rendered."""
    if value is None or isinstance(value, str):
        return value
    return display_value(value)


# Run and custom input compare with the reference; only Submit is judged "accepted" in words.
COMPARED_LABELS = {
    Verdict.ACCEPTED: "Matches the reference",
    Verdict.WRONG_ANSWER: "Differs from the reference",
}
COMPARED_EXPLANATIONS = {
    Verdict.ACCEPTED: (
        "Your output matches the reference's within the problem's tolerances. Submit runs the hidden cases."
    ),
    Verdict.WRONG_ANSWER: "Your output differs from the reference's: each case says which property differs.",
}


def verdict_words(verdict: Verdict | None, mode: str) -> tuple[str | None, str]:
    """The verdict's label and explanation: for Run and custom input, "Matches the reference" or
    "Differs from the reference", never "Accepted" (they compare with the reference, not judge)."""
    if verdict is None:
        return None, ""
    if mode in ("run", "custom") and verdict in COMPARED_LABELS:
        return COMPARED_LABELS[verdict], COMPARED_EXPLANATIONS[verdict]
    return verdict.label, verdict.explanation


def _exercises(name: str) -> str:
    """What a hidden case exercises, from its name: ``batch_of_one`` reads "batch of one"."""
    return " ".join(name.replace("_", " ").split()) or "case"


class FailureView(BaseModel):
    """Which property of a case failed (``runner.judging.failures``): the same words on every problem."""

    model_config = ConfigDict(extra="ignore")

    kind: str = Field(
        description="shape, dtype, device, non_finite, values, type, requires_grad, layout, gradients, "
        "in_place, storage, optimizer, hooks, operations, rule, left_state, exception, refused, no_value, "
        "time_limit, memory_limit, output_limit, not_run or judge_modified"
    )
    title: str = Field(
        description='The kind in words, e.g. "Values beyond tolerance" or "Breaks rule no-copy"'
    )
    rule: str | None = Field(default=None, description="kind rule: the statement's rule id")
    sentence: str | None = Field(default=None, description="kind rule: the rule's sentence in the statement")
    property: str | None = Field(
        default=None, description="kind rule: the property the rule's check saw fail"
    )
    rtol: float | None = Field(default=None, description="values: the case's relative tolerance")
    atol: float | None = Field(default=None, description="values: the case's absolute tolerance")
    max_error: float | None = Field(default=None, description="values: the largest absolute error")
    input: str | None = Field(
        default=None,
        description="The failing generated input as custom-input text, to run it yourself (Try this input, "
        "torchdrill run --input)",
    )


class CaseView(BaseModel):
    """One test case's result. Hidden cases never carry values or output, even if a runner sent them."""

    name: str
    public: bool
    status: str = Field(description="passed, failed, error or not_run")
    message: str
    time_ms: float
    expected: str | None = Field(default=None, description="Public cases only")
    actual: str | None = Field(default=None, description="Public cases only")
    stdout: str | None = Field(default=None, description="Public cases only")
    line: int | None = Field(default=None, description="The solution.py line where this case failed")
    column: int | None = Field(default=None, description="The column, for a syntax error")
    traceback: str = Field(default="", description="The traceback through your own code only")
    label: str = Field(
        default="",
        description="How the case is shown: its name, or for a hidden case its number and what it "
        'exercises ("hidden 3 · batch of one")',
    )
    message_html: str = Field(
        default="", description="The message as safe HTML: its `code` spans as <code>, nothing else"
    )
    failure: FailureView | None = Field(
        default=None, description="What failed, in the one failure vocabulary (null for a passed case)"
    )
    try_input: str | None = Field(
        default=None,
        description="A failed case's input as custom-input text, to run it yourself (Try this input, "
        "torchdrill run --input): a public case's (the statement's example), or a failing generated "
        "input's; never a hidden case's own values",
    )

    @classmethod
    def of(cls, case: dict[str, Any], hidden_number: int = 0, public_input: str | None = None) -> CaseView:
        """``public_input``: the public cases' input as custom-input text (the statement's example,
        ``[example_input]``), offered on a failed public case."""
        public = bool(case.get("public"))
        name = case.get("name", "")
        message = case.get("message", "")
        failure = case.get("failure")
        failed = case.get("status") in FAILED_STATUSES
        generated = failure.get("input") if isinstance(failure, dict) else None
        offered = generated if isinstance(generated, str) and generated else None
        if offered is None and public and failed and public_input:
            offered = public_input
        return cls(
            name=name,
            public=public,
            label=name if public else f"hidden {hidden_number} · {_exercises(name)}",
            status=case.get("status", ""),
            message=message,
            message_html=render_message(message) if message else "",
            failure=FailureView.model_validate(failure)
            if isinstance(failure, dict) and failure.get("kind")
            else None,
            time_ms=case.get("time_ms", 0.0),
            line=case.get("line"),
            column=case.get("column"),
            traceback=case.get("traceback") or "",
            expected=_display(case.get("expected")) if public else None,
            actual=_display(case.get("actual")) if public else None,
            stdout=case.get("stdout") if public else None,
            try_input=offered if failed else None,
        )

    def gated(self) -> CaseView:
        """The case without what the problem's gate covers (values, inputs, the judge's words about
        them): its name, status, time, where the learner's code failed and what kind of failure."""
        failure = (
            FailureView(kind=self.failure.kind, title=self.failure.title, rule=self.failure.rule)
            if self.failure is not None
            else None
        )
        shown = f"{failure.title}." if failure is not None and self.status != "passed" else ""
        return CaseView(
            name=self.name, public=self.public, status=self.status, message=shown,
            message_html=render_message(shown) if shown else "", time_ms=self.time_ms,
            line=self.line, column=self.column, label=self.label, failure=failure,
        )  # fmt: skip


class SubmissionView(BaseModel):
    model_config = ConfigDict(
        populate_by_name=True,
        json_schema_extra={
            "examples": [
                {"id": 42, "problem": "add-tensors", "problem_version_id": 7, "mode": "submit",
                 "status": "finished", "verdict": "accepted", "verdict_label": "Accepted",
                 "verdict_explanation": "", "line": None, "column": None, "passed": 3, "total": 3,
                 "message": "",
                 "tests": [{"name": "example", "public": True, "status": "passed", "message": "",
                            "time_ms": 0.4, "expected": "tensor([4., 6.])", "actual": "tensor([4., 6.])",
                            "stdout": "", "line": None, "column": None, "traceback": ""}],
                 "time_ms": 31.5, "runtime": {"python": "3.11.2", "torch": "2.13.0"},
                 "created_at": "2026-12-03T10:00:00Z", "started_at": "2026-12-03T10:00:00.010000Z",
                 "finished_at": "2026-12-03T10:00:00.045000Z", "url": "/api/v1/submissions/42"}
            ]
        },
    )  # fmt: skip

    id: int
    problem: str = Field(description="The problem's slug")
    problem_version_id: int | None = Field(default=None, description="The problem version it was judged on")
    mode: Mode
    status: Status
    verdict: Verdict | None
    verdict_label: str | None = Field(
        default=None,
        description='The verdict in words; for run and custom modes "Matches the reference" or '
        '"Differs from the reference" rather than Accepted or Wrong Answer',
    )
    verdict_explanation: str = Field(default="", description="What the verdict means and what to look at")
    line: int | None = Field(
        default=None, description="Where to look in solution.py (the first failing case)"
    )
    column: int | None = Field(default=None, description="The column, for a syntax error")
    passed: int | None
    total: int | None
    message: str
    message_html: str = Field(
        default="", description="The message as safe HTML: its `code` spans as <code>, nothing else"
    )
    time_ms: float | None
    runtime: dict[str, str]
    # ``cases`` on the page's API and in templates; ``tests`` in the REST API (its serialisation alias).
    cases: list[CaseView] = Field(
        validation_alias=AliasChoices("cases", "tests"), serialization_alias="tests"
    )
    input: dict[str, Any] | None = Field(
        default=None, description="Custom runs only: the arguments given (tensors as {tensor, dtype})"
    )
    how_rules_elsewhere: list[str] = Field(
        default_factory=list,
        description="Custom runs only: the ids of the statement's how-rules that only the problem's own "
        "cases check, on their own data (Run and Submit check them; the message says so). A rule "
        "that holds in every case (an operation rule) is checked on your input too",
    )
    locked: bool = Field(
        default=False,
        description="True when the problem is Premium and you no longer have Premium: the cases keep "
        "their names, statuses and failure kinds, without values, inputs or the judge's messages",
    )
    created_at: datetime
    started_at: datetime | None
    finished_at: datetime | None
    url: str

    @classmethod
    def of(
        cls,
        submission: Submission,
        slug: str,
        url: str | None = None,
        *,
        locked: bool = False,
        public_input: str | None = None,
    ) -> SubmissionView:
        """The view of a stored submission; ``url`` defaults to its page. ``locked``: the viewer may
        no longer work on the problem (the Premium gate), so the cases are :meth:`CaseView.gated`.
        ``public_input``: the public cases' input as text, for "Try this input"."""
        stored = clean_value(
            {
                "message": submission.message or "",
                "runtime": submission.runtime or {},
                "cases": submission.cases or [],
            }
        )
        cases: list[CaseView] = []
        hidden = 0
        for c in stored["cases"]:
            hidden += 0 if c.get("public") else 1
            case = CaseView.of(c, hidden, public_input)
            cases.append(case.gated() if locked else case)
        verdict = Verdict.parse(submission.verdict)
        label, explanation = verdict_words(verdict, submission.mode)
        return cls(
            id=submission.id,
            problem=slug,
            problem_version_id=submission.problem_version_id,
            mode=submission.mode,  # type: ignore[arg-type]  # the CHECK constraint; pydantic re-checks
            status=submission.status,  # type: ignore[arg-type]
            verdict=verdict,
            verdict_label=label,
            verdict_explanation=explanation,
            # Where to mark the editor: the first case that says where the learner's code failed.
            line=next((c.line for c in cases if c.line), None),
            column=next((c.column for c in cases if c.column), None),
            passed=submission.passed,
            total=submission.total,
            message=LOCKED_MESSAGE if locked else stored["message"],
            message_html=render_message(LOCKED_MESSAGE if locked else stored["message"])
            if stored["message"] or locked
            else "",
            time_ms=submission.time_ms,
            runtime={str(k): str(v) for k, v in stored["runtime"].items()},
            cases=cases,
            input=submission.custom_input,
            how_rules_elsewhere=rules_checked_elsewhere(stored["message"])
            if submission.mode == CUSTOM and not locked
            else [],
            locked=locked,
            created_at=submission.created_at,
            started_at=submission.started_at,
            finished_at=submission.finished_at,
            url=url or f"/submissions/{submission.id}",
        )

    def page_json(self) -> dict[str, Any]:
        """The page's JSON (``cases``), for ``/api`` and the templates; hidden cases have no value keys."""
        hidden = {i: {"expected", "actual", "stdout"} for i, c in enumerate(self.cases) if not c.public}
        return self.model_dump(mode="json", exclude={"cases": hidden} if hidden else None)

    def api_json(self) -> dict[str, Any]:
        """The REST API's JSON (``tests``), exactly what its response model serialises."""
        return self.model_dump(mode="json", by_alias=True)


class SubmissionSummary(BaseModel):
    """A row of a submission history or list."""

    id: int
    problem: str
    mode: Mode
    status: Status
    verdict: Verdict | None
    verdict_label: str | None = None
    passed: int | None
    total: int | None
    created_at: datetime
    finished_at: datetime | None
    url: str

    @classmethod
    def of(cls, submission: Submission, slug: str, url: str | None = None) -> SubmissionSummary:
        verdict = Verdict.parse(submission.verdict)
        return cls(
            id=submission.id,
            problem=slug,
            mode=submission.mode,  # type: ignore[arg-type]
            status=submission.status,  # type: ignore[arg-type]
            verdict=verdict,
            verdict_label=verdict_words(verdict, submission.mode)[0],
            passed=submission.passed,
            total=submission.total,
            created_at=submission.created_at,
            finished_at=submission.finished_at,
            url=url or f"/submissions/{submission.id}",
        )


class SubmissionList(BaseModel):
    items: list[SubmissionSummary]
    next: str | None = Field(description="The URL of the next (older) page, or null")
