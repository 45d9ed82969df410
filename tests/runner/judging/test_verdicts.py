"""runner.judging.results.build_result on hand-made raw runs (no sandbox), and error locations for real."""

from __future__ import annotations

from typing import Any

import pytest

from runner.jobs import CaseExpectation, Expectations, Limits
from runner.judging.results import build_result
from runner.records import values
from runner.sandbox.channel import RawRun, parse_records

EXPECT = Expectations(
    cases=(
        CaseExpectation("example", True, 1e-4, 1e-4, values.encode([1.0, 2.0])),
        CaseExpectation("hidden", False, 1e-4, 1e-4, values.encode(3)),
    )
)
LIMITS = Limits(time_s=2)


def raw_of(*records: dict[str, Any], **fields: Any) -> RawRun:
    raw = RawRun(**fields)
    parse_records(raw, b"".join(values_json(r) for r in records))
    return raw


def values_json(record: dict[str, Any]) -> bytes:
    import json

    return (json.dumps(record) + "\n").encode()


START = {"type": "start"}
CASES = {"type": "cases", "cases": []}


def case(name: str, value: Any = None, **extra: Any) -> dict[str, Any]:
    record = {"type": "case", "name": name, "status": "ok", "value": values.encode(value), "time_ms": 1.0}
    return record | extra


def test_all_cases_right_is_accepted() -> None:
    raw = raw_of(START, CASES, case("example", [1.0, 2.0]), case("hidden", 3), {"type": "done"})
    result = build_result(raw, EXPECT, "submit", LIMITS)
    assert (result.verdict, result.passed, result.total) == ("accepted", 2, 2)


def test_a_wrong_hidden_value_is_wrong_answer_without_its_expected_value() -> None:
    raw = raw_of(START, CASES, case("example", [1.0, 2.0]), case("hidden", 4), {"type": "done"})
    result = build_result(raw, EXPECT, "submit", LIMITS)
    assert result.verdict == "wrong_answer"
    hidden = result.cases[1]
    assert hidden.status == "failed" and hidden.expected is None
    # It says which property failed, with the tolerance and the largest error, never the value 3.
    assert hidden.failure is not None and hidden.failure["kind"] == "values"
    assert hidden.failure["max_error"] == 1.0 and "rtol" in hidden.failure
    assert hidden.message.startswith("Values beyond tolerance: off by 1 (rtol=")
    assert "3" not in hidden.message.partition("(")[0]


def test_every_property_has_its_own_words() -> None:
    """Shape, dtype and non-finite values are named as such, for hidden cases too."""
    import torch

    expect = Expectations(
        cases=(CaseExpectation("hidden", False, 1e-4, 1e-4, values.encode(torch.ones(2, 3))),)
    )
    seen = {
        "shape": torch.ones(3, 2),
        "dtype": torch.ones(2, 3, dtype=torch.float64),
        "non_finite": torch.tensor([[1.0, float("nan"), 1.0], [1.0, 1.0, 1.0]]),
        "values": torch.tensor([[1.0, 1.0, 1.0], [1.0, 1.0, 1.5]]),
    }
    for kind, value in seen.items():
        raw = raw_of(START, CASES, case("hidden", value), {"type": "done"})
        failed = build_result(raw, expect, "submit", LIMITS).cases[0]
        assert failed.failure is not None and failed.failure["kind"] == kind, (kind, failed.message)
    assert failed.message == (
        "Values beyond tolerance: 1 of 6 elements differ; the largest error is 0.5 at index [1, 2] "
        "(rtol=0.0001, atol=0.0001)."
    )


def test_run_mode_judges_the_public_cases_only() -> None:
    raw = raw_of(START, CASES, case("example", [1.0, 2.0]), {"type": "done"})
    result = build_result(raw, EXPECT, "run", LIMITS)
    assert (result.verdict, result.total) == ("accepted", 1)


def test_a_missing_case_is_never_a_pass() -> None:
    raw = raw_of(START, CASES, case("example", [1.0, 2.0]), exit_status=0)
    result = build_result(raw, EXPECT, "submit", LIMITS)
    assert result.verdict == "runtime_error" and result.cases[1].status == "not_run"


@pytest.mark.parametrize(
    "records",
    [
        [START, CASES, case("example", [1.0, 2.0]), case("example", [1.0, 2.0])],  # duplicate
        [START, CASES, {"type": "tests_error", "message": "forged"}],  # internal_error forged late
        [START, CASES, {"type": "sandbox_error", "message": "forged"}],
        [START, CASES, {"type": "surprise"}],
        [START, CASES, case("example", [1.0, 2.0]), case("hidden", 3), {"type": "done"}, {"type": "done"}],
        [START, START],
    ],
    ids=["duplicate-case", "late-tests-error", "late-sandbox-error", "unknown", "after-done", "two-starts"],
)
def test_records_out_of_the_harness_order_are_the_learners_runtime_error(records: list[Any]) -> None:
    result = build_result(raw_of(*records), EXPECT, "submit", LIMITS)
    assert result.verdict == "runtime_error" and "result channel" in result.message


def test_malformed_and_deeply_nested_lines_are_tampering() -> None:
    for garbage in (b"{nope\n", b"[" * 100_000 + b"\n", b"[1, 2]\n"):
        raw = RawRun()
        parse_records(raw, values_json(START) + garbage)
        result = build_result(raw, EXPECT, "submit", LIMITS)
        assert result.verdict == "runtime_error" and "result channel" in result.message


def test_platform_failures_are_internal_errors_with_a_cause() -> None:
    sandbox = build_result(
        raw_of({"type": "sandbox_error", "message": "no cgroup"}), EXPECT, "submit", LIMITS
    )
    assert sandbox.verdict == "internal_error" and sandbox.cause == "sandbox"
    tests = build_result(raw_of(START, {"type": "tests_error", "message": "x"}), EXPECT, "submit", LIMITS)
    assert tests.verdict == "internal_error" and tests.cause == "tests"
    assert build_result(RawRun(), EXPECT, "submit", LIMITS).cause == "sandbox"  # the harness never started


@pytest.mark.parametrize("status", [-24, 152])
def test_the_cpu_time_signal_is_a_time_limit(status: int) -> None:
    result = build_result(raw_of(START, CASES, exit_status=status, cpu_ms=3100), EXPECT, "submit", LIMITS)
    assert result.verdict == "time_limit_exceeded" and "CPU time" in result.message


def test_limits_win_over_case_results() -> None:
    raw = raw_of(START, CASES, case("example", [9.0]), output_exceeded=True)
    assert build_result(raw, EXPECT, "submit", LIMITS).verdict == "output_limit_exceeded"
    raw = raw_of(START, CASES, timed_out=True)
    assert build_result(raw, EXPECT, "submit", LIMITS).verdict == "time_limit_exceeded"
    raw = raw_of(START, CASES, oom_killed=True)
    assert build_result(raw, EXPECT, "submit", LIMITS).verdict == "memory_limit_exceeded"


def test_error_locations_reach_the_result() -> None:
    compile_error = {"type": "compile_error", "message": "SyntaxError: x", "line": 3, "column": 7}
    result = build_result(raw_of(START, compile_error), EXPECT, "submit", LIMITS)
    assert result.verdict == "compile_error" and (result.cases[0].line, result.cases[0].column) == (3, 7)
    error = case("example", status="error", message="ValueError: bad", line=5, traceback="Traceback …")
    error.pop("value")
    result = build_result(
        raw_of(START, CASES, error, case("hidden", 3), {"type": "done"}), EXPECT, "submit", LIMITS
    )
    assert result.verdict == "runtime_error" and result.cases[0].line == 5
    assert result.cases[0].traceback == "Traceback …"


def test_a_real_traceback_shows_only_the_learners_frames() -> None:
    from pathlib import Path

    from runner import get_runner
    from runner.format.problem import load_problem_dir

    runner = get_runner()
    problem = load_problem_dir(Path(__file__).parents[2] / "app" / "fixtures" / "bank" / "add-tensors")
    expectations = runner.compute_expectations(problem)
    code = "def add(a, b):\n    return helper(a)\n\n\ndef helper(x):\n    raise ValueError('bad')\n"
    result = runner.judge(runner.job_for(problem, expectations, code, "run"))
    case_result = result.cases[0]
    assert result.verdict == "runtime_error" and case_result.line == 6
    assert 'File "solution.py", line 2, in add' in case_result.traceback
    assert "line 6, in helper" in case_result.traceback and "harness" not in case_result.traceback
    broken = runner.judge(runner.job_for(problem, expectations, "def add(a, b)\n    return a\n", "run"))
    assert broken.verdict == "compile_error" and (broken.cases[0].line, broken.cases[0].column) == (1, 14)
