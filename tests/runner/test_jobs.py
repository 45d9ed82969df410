"""runner.jobs: a verdict survives the wire (JSON) whole, every case field included."""

from __future__ import annotations

import json
from dataclasses import fields

from runner.jobs import CaseResult, JudgeResult


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
