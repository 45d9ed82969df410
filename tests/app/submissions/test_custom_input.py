"""Custom input ("Run with my input") through the page's JSON endpoint, judged by the real sandbox."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from fastapi.testclient import TestClient

from app.main import create_app
from app.progress.rules import counts_as_judged, counts_as_solved
from tests.app.conftest import Browser, settings_for


def custom(learner: Any, slug: str, code: str, text: str) -> Any:
    return learner.post(
        f"/api/problems/{slug}/submissions",
        json={"code": code, "mode": "custom", "input_text": text},
        headers={"X-CSRF-Token": learner.csrf()},
    )


def test_custom_input_shows_the_reference_output_and_yours(learner, code_of: Callable[..., str]) -> None:
    wrong = "def add(a, b):\n    return a - b\n"
    created = custom(
        learner, "add-tensors", wrong, "{'a': {'tensor': [10.0, 20.0]}, 'b': {'tensor': [1.0, 2.0]}}"
    )
    assert created.status_code == 202, created.text
    result = learner.verdict(created.json()["id"])
    assert result["mode"] == "custom"
    assert result["input"] == {"a": {"tensor": [10.0, 20.0], "dtype": "float32"},
                               "b": {"tensor": [1.0, 2.0], "dtype": "float32"}}  # fmt: skip
    assert result["verdict"] == "wrong_answer"
    [case] = result["cases"]
    assert case["public"] and case["status"] == "failed"
    assert "[11.0, 22.0]" in case["expected"]  # the reference's output for it
    assert "[9.0, 18.0]" in case["actual"]
    # the reference's source never reaches a response
    reference = code_of("add-tensors")
    assert "return a + b" not in created.text and reference.strip() not in str(result)


def test_json_input_with_a_correct_solution_is_accepted(learner, code_of: Callable[..., str]) -> None:
    text = '{"a": {"tensor": [[1, 2]], "dtype": "int64"}, "b": {"tensor": [[3, 4]], "dtype": "int64"}}'
    result = learner.verdict(custom(learner, "add-tensors", code_of("add-tensors"), text).json()["id"])
    assert result["verdict"] == "accepted", result
    assert result["cases"][0]["expected"] == result["cases"][0]["actual"]


def test_the_result_names_the_rules_run_and_submit_check(learner, code_of: Callable[..., str]) -> None:
    """add-tensors' inputs-not-modified is checked by its own case on its own data: a custom result
    says so in its message (shown on the page) and lists it; Run's result does not."""
    note = "How-rules (inputs-not-modified) are checked by Run and Submit."
    text = '{"a": {"tensor": [1.0, 2.0]}, "b": {"tensor": [3.0, 4.0]}}'
    writes = "def add(a, b):\n    a.add_(b)\n    return a.clone()\n"  # breaks the rule, values right
    wrong = "def add(a, b):\n    return a\n"
    for code, verdict in (
        (code_of("add-tensors"), "accepted"),
        (wrong, "wrong_answer"),
        (writes, "accepted"),
    ):
        result = learner.verdict(custom(learner, "add-tensors", code, text).json()["id"])
        assert result["verdict"] == verdict, result
        assert result["how_rules_elsewhere"] == ["inputs-not-modified"]
        assert result["message"].endswith(note) and note in result["message_html"]
    run = learner.post(
        "/api/problems/add-tensors/submissions",
        json={"code": code_of("add-tensors"), "mode": "run"},
        headers={"X-CSRF-Token": learner.csrf()},
    )
    ran = learner.verdict(run.json()["id"])
    assert ran["how_rules_elsewhere"] == [] and "How-rules" not in ran["message"]


def test_input_the_reference_cannot_take_is_reported(learner, code_of: Callable[..., str]) -> None:
    text = '{"a": {"tensor": [1.0, 2.0, 3.0]}, "b": {"tensor": [1.0, 2.0]}}'
    result = learner.verdict(custom(learner, "add-tensors", code_of("add-tensors"), text).json()["id"])
    assert result["verdict"] == "runtime_error"
    assert "reference solution cannot run on this input" in result["message"]
    assert "solution.py" not in result["message"]


def test_bad_input_is_refused_with_the_rule(learner, code_of: Callable[..., str]) -> None:
    code = code_of("add-tensors")
    ragged = custom(learner, "add-tensors", code, '{"a": {"tensor": [[1], [1, 2]]}, "b": 1}')
    assert ragged.status_code == 422
    assert "input.a.tensor[1]" in ragged.json()["detail"] and "same shape" in ragged.json()["detail"]
    called = custom(learner, "add-tensors", code, "{'a': __import__('os').getcwd()}")
    assert called.status_code == 422 and "only literal values" in called.json()["detail"]
    assert custom(learner, "add-tensors", code, "[1, 2]").status_code == 422


def test_problem_without_example_input_has_no_custom_input(learner, code_of: Callable[..., str]) -> None:
    response = custom(learner, "sum-of-squares", code_of("sum-of-squares"), '{"x": 1}')
    assert response.status_code == 422
    assert "no custom input" in response.json()["detail"]


def test_custom_runs_count_as_attempted_never_solved() -> None:
    assert not counts_as_solved("custom", "accepted")
    assert not counts_as_judged("custom", "accepted")


def test_premium_gate_applies_to_custom_runs(learner, code_of: Callable[..., str]) -> None:
    response = custom(
        learner, "scale-rows", code_of("scale-rows"), '{"x": {"tensor": [[1.0]]}, "s": {"tensor": [2.0]}}'
    )
    assert response.status_code == 403


def test_submission_page_shows_the_input_of_a_custom_run(learner, code_of: Callable[..., str]) -> None:
    sid = custom(learner, "add-tensors", code_of("add-tensors"), '{"a": 1.5, "b": 2}').json()["id"]
    result = learner.verdict(sid)
    assert result["verdict"] == "accepted" and result["cases"][0]["actual"] == "3.5"
    page = learner.get(f"/submissions/{sid}").text
    assert '<pre class="custom-input-shown" id="submission-input">{"a": 1.5, "b": 2}</pre>' in page


def test_custom_runs_from_the_page_are_rate_limited(db, runner, code_of: Callable[..., str]) -> None:
    settings = settings_for(db.url).model_copy(update={"api_submissions_per_minute": 1})
    application = create_app(settings, database=db, runner=runner)
    with TestClient(application):  # the lifespan: this app's own dispatcher
        learner = Browser(application)
        assert learner.signup().status_code == 303
        text = '{"a": 1.0, "b": 2.0}'
        first = custom(learner, "add-tensors", code_of("add-tensors"), text)
        assert first.status_code == 202
        learner.verdict(first.json()["id"])
        second = custom(learner, "add-tensors", code_of("add-tensors"), text)
        assert second.status_code == 429 and "At most 1 submissions a minute" in second.json()["detail"]


def test_the_statements_notation_is_read_and_the_result_says_differs(learner) -> None:
    """`a = torch.tensor(...)` as a statement writes it, read as data; "Differs from the reference",
    never "Wrong Answer", with the failure in the one vocabulary."""
    wrong = "def add(a, b):\n    return a - b\n"
    text = "import torch\na = torch.tensor([10., 20.])\nb = torch.ones(2)"
    created = custom(learner, "add-tensors", wrong, text)
    assert created.status_code == 202, created.text
    result = learner.verdict(created.json()["id"])
    assert result["input"] == {"a": {"tensor": [10.0, 20.0], "dtype": "float32"},
                               "b": {"tensor": [1.0, 1.0], "dtype": "float32"}}  # fmt: skip
    assert result["verdict"] == "wrong_answer" and result["verdict_label"] == "Differs from the reference"
    [case] = result["cases"]
    assert case["failure"]["kind"] == "values" and case["failure"]["max_error"] == 2.0
    assert case["message"].startswith(
        "Values beyond tolerance: 2 of 2 elements differ; the largest error is 2"
    )
    assert case["label"] == "your_input" and case["message_html"]
    right = learner.verdict(
        custom(learner, "add-tensors", "def add(a, b):\n    return a + b\n", text).json()["id"]
    )
    assert right["verdict_label"] == "Matches the reference", right


def test_statement_notation_is_never_run(learner, code_of: Callable[..., str]) -> None:
    code = code_of("add-tensors")
    for text, words in [
        ("a = torch.tensor(__import__('os').getcwd())\nb = 1", "only literal values"),
        ("a = torch.randn(2)\nb = 1", "random values"),
        ("import os\na = 1", "only assignments"),
        ("a = (lambda: 1)()\nb = 1", "only literal values"),
        ("a = torch.zeros(100000, 100000)\nb = 1", "too large"),
        ("a = torch.arange(0, 1e308, 1e-308)\nb = 1", "too large"),
        ("a = torch.ones(2).__class__\nb = 1", "only literal values"),
    ]:
        refused = custom(learner, "add-tensors", code, text)
        assert refused.status_code == 422, (text, refused.text)
        assert words in refused.json()["detail"], (text, refused.json())
