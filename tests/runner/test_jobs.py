"""runner.jobs: a verdict survives the wire (JSON) whole, every case field included."""

from __future__ import annotations

import json
from dataclasses import fields

from runner.jobs import CaseExpectation, CaseResult, Expectations, JudgeResult


def test_a_verdict_round_trips_through_json_with_every_case_field() -> None:
    tensor = {"tensor": [[1.0, 2.0], [3.0, 4.0]], "dtype": "float32"}
    cases = [
        CaseResult(
            "example", True, "failed", "values differ", 0.4, tensor, {**tensor, "dtype": "float64"}, "hi\n"
        ),
        CaseResult("hidden", False, "error", "ZeroDivisionError", 0.1, line=3, column=7, traceback="tb"),
    ]
    result = JudgeResult("wrong_answer", 0, 2, cases, "1 of 2", 5.5, {"torch": "2.13.0"})
    wire = json.loads(json.dumps(result.to_dict()))
    assert JudgeResult.from_dict(wire) == result
    assert [set(c) for c in wire["cases"]] == [{f.name for f in fields(CaseResult)}] * 2


def _expectations(*observed: dict[str, object] | None) -> Expectations:
    return Expectations(
        cases=tuple(
            CaseExpectation(name=f"c{i}", public=i == 0, rtol=0.0, atol=0.0, value=None, observed=o)
            for i, o in enumerate(observed)
        )
    )


def test_a_problem_checks_operations_when_any_case_of_its_reference_ran_a_check() -> None:
    checked = {"checks": [["forbid", "aten.cdist", "Compute the distances yourself."]]}
    assert _expectations(None, checked).checks_operations()
    assert _expectations({"checks": [["vectorised", "", "8,64"]], "op_counts": [40]}).checks_operations()
    # hooks observed, or nothing at all: no check of operations
    assert not _expectations(None, {"hooks": [[]]}).checks_operations()
    assert not _expectations(None, None).checks_operations()
    # stored expectations read back from JSON answer the same
    again = Expectations.from_dict(json.loads(json.dumps(_expectations(None, checked).to_dict())))
    assert again.checks_operations()
