"""The data that crosses the runner's boundary: jobs in, results out.

Everything here is plain data that serialises to JSON, so a job can travel through
a broker and a result can be stored as-is. Nothing here imports torch.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Literal

from runner.format.custom import CustomInput
from runner.verdict import Verdict

Mode = Literal["run", "submit"]

# Per-case statuses.
CASE_PASSED = "passed"
CASE_FAILED = "failed"  # wrong value
CASE_ERROR = "error"  # raised an exception
CASE_NOT_RUN = "not_run"  # the process ended (limit, crash, exit) before this case finished


@dataclass(frozen=True)
class Limits:
    """Resource limits for one submission. ``time_s`` is wall time for the whole run."""

    time_s: float = 10.0
    memory_mb: int = 1024
    max_processes: int = 64
    max_file_mb: int = 16
    tmp_mb: int = 64
    max_output_kb: int = 256
    # The judged code may start threads and processes (problem.toml's ``[limits] threads = true``);
    # otherwise the sandbox refuses them once the harness is ready (docs/security.md).
    threads: bool = False

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any] | None) -> Limits:
        data = data or {}
        known = {k: data[k] for k in cls.__dataclass_fields__ if k in data}
        return cls(**known)


# What computed expectations record; raise it when the reference's run records something new
# (2: behaviour observations, runner.judging.observations; 3: check_call's inputs written and
# restored, and its outputs found inside containers; 4: the operators allow_ops blocks used, a
# family sample's input as custom-input text and a case's rule_by_value; 5: what allow_ops blocks
# and assert_vectorised's counts saw after they ended, until their case did), so stored problems
# get recomputed on import.
JUDGE_FORMAT = 5


@dataclass(frozen=True)
class CaseExpectation:
    """What the reference produced for one case, and how to compare against it."""

    name: str
    public: bool
    rtol: float
    atol: float
    value: Any  # encoded with runner.records.values.encode
    # What the reference's run observed (runner.judging.observations.summary): hooks, operation checks.
    observed: dict[str, Any] | None = None
    # The statement's rule the case enforces (runner.format.rules) and its sentence, for the message.
    rule: str = ""
    rule_sentence: str = ""
    # Its returned values are the rule's evidence (@case(rule_by_value=True)): a difference breaks the rule.
    rule_by_value: bool = False

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class Expectations:
    """All cases of a problem, in declaration order, with their expected values.

    ``judge_format`` says which judge computed them: a judge that records more about the
    reference's run (e.g. its behaviour observations, format 2) raises :data:`JUDGE_FORMAT`,
    and problems whose stored expectations are older are imported again as a new version.
    """

    cases: tuple[CaseExpectation, ...]
    judge_format: int = 0

    def public(self) -> tuple[CaseExpectation, ...]:
        return tuple(c for c in self.cases if c.public)

    def select(self, mode: Mode) -> tuple[CaseExpectation, ...]:
        return self.public() if mode == "run" else self.cases

    def checks_operations(self) -> bool:
        """Whether the problem's tests checked operations in the reference's run (a forbid,
        require, allow or vectorised check in any case). Only then does every case of its jobs begin
        with the judge's function mode on (``runner.testing.ops``): where the tests check none,
        there is nothing at that level for a solution to evade by seeing whether it is watched."""
        return any(c.observed and c.observed.get("checks") for c in self.cases)

    def to_dict(self) -> dict[str, Any]:
        return {"cases": [c.to_dict() for c in self.cases], "judge_format": self.judge_format}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Expectations:
        return cls(
            cases=tuple(CaseExpectation(**c) for c in data["cases"]),
            judge_format=int(data.get("judge_format", 0)),
        )


@dataclass(frozen=True)
class Job:
    """One judging request. ``expectations`` stays on the host; the sandbox never sees it."""

    entry_point: str
    tests_source: str
    code: str
    mode: Mode
    expectations: Expectations
    limits: Limits = field(default_factory=Limits)
    job_id: str = ""
    # "Run with my input": the reference runs the learner's arguments first, in its own sandbox job
    # (runner.format.custom); ``tests_source`` and ``expectations`` are then ignored.
    custom: CustomInput | None = None
    # What the problem allows beyond the source policy (runner.judging.source_policy), from problem.toml.
    source_allow: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        data = {
            "entry_point": self.entry_point,
            "tests_source": self.tests_source,
            "code": self.code,
            "mode": self.mode,
            "expectations": self.expectations.to_dict(),
            "limits": self.limits.to_dict(),
            "job_id": self.job_id,
        } | ({"custom": self.custom.to_dict()} if self.custom is not None else {})
        return data | ({"source_allow": list(self.source_allow)} if self.source_allow else {})

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Job:
        return cls(
            entry_point=data["entry_point"],
            tests_source=data["tests_source"],
            code=data["code"],
            mode=data["mode"],
            expectations=Expectations.from_dict(data["expectations"]),
            limits=Limits.from_dict(data.get("limits")),
            job_id=data.get("job_id", ""),
            custom=CustomInput.from_dict(data["custom"]) if data.get("custom") else None,
            source_allow=tuple(str(a) for a in data.get("source_allow") or ()),
        )


@dataclass
class CaseResult:
    name: str
    public: bool
    status: str
    message: str = ""
    time_ms: float = 0.0
    # Only filled for public cases: hidden cases never reveal expected values or stdout.
    expected: Any = None
    actual: Any = None
    stdout: str | None = None
    # Where the learner's code failed (error cases, compile and import errors): for the editor.
    line: int | None = None
    column: int | None = None
    traceback: str = ""  # only the learner's own frames, bounded
    # What failed, in the failure vocabulary (runner.judging.failures.Failure.to_dict): its kind,
    # title and fields (a rule's id and sentence, a tolerance and the largest error, an input).
    failure: dict[str, Any] | None = None

    def to_dict(self) -> dict[str, Any]:
        """Its fields, the values themselves (no deep copy: ``asdict`` cost ~70 µs a public case,
        every verdict). A case's values are the runner's JSON-ready data, never changed once
        the verdict is built; what stores or sends them copies them (``clean_value``, JSON)."""
        return dict(vars(self))


@dataclass
class JudgeResult:
    verdict: str
    passed: int
    total: int
    cases: list[CaseResult]
    message: str = ""
    time_ms: float = 0.0  # job in to verdict out, measured on the host
    runtime: dict[str, str] = field(default_factory=dict)
    cause: str = ""  # internal_error only: which part of the platform failed (logs, /metrics)

    @property
    def accepted(self) -> bool:
        return self.verdict == Verdict.ACCEPTED

    @classmethod
    def internal_error(cls, message: str, cause: str, total: int = 0) -> JudgeResult:
        """The platform failed, not the learner: the one way such a result is built.

        ``cause`` is a short word (``sandbox``, ``tests``, ``runner_exception``, ``stuck``, …) that
        is logged and counted in ``/metrics``; the submission can be re-judged by an operator.
        """
        return cls(
            verdict=Verdict.INTERNAL_ERROR, passed=0, total=total, cases=[], message=message, cause=cause
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "verdict": self.verdict,
            "passed": self.passed,
            "total": self.total,
            "message": self.message,
            "time_ms": self.time_ms,
            "runtime": dict(self.runtime),
            "cases": [c.to_dict() for c in self.cases],
        } | ({"cause": self.cause} if self.cause else {})

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> JudgeResult:
        return cls(
            verdict=data["verdict"],
            passed=data["passed"],
            total=data["total"],
            message=data.get("message", ""),
            time_ms=data.get("time_ms", 0.0),
            runtime=data.get("runtime", {}),
            cause=str(data.get("cause", "")),
            cases=[CaseResult(**c) for c in data.get("cases", [])],
        )


class ExpectationError(ValueError):
    """The reference solution or the tests failed while computing expected values (``Runner.
    compute_expectations``, the runner service and the remote runner raise it alike)."""
