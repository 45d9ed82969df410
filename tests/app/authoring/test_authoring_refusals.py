"""A broken problem is refused with a message naming the cause (file, line, what to do)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.app.authoring.helpers import WALKTHROUGH, call


def _validate(author: Any, files: dict[str, str]) -> dict[str, Any]:
    response = call(
        author, "POST", f"/api/v1/authoring/problems/{WALKTHROUGH}/validate", json={"files": files}
    )
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    assert body["ok"] is False, body["text"]
    return body


def _errors(report: dict[str, Any]) -> list[str]:
    return [f"{e['file']}:{e['line'] or ''} {e['message']} — {e['fix']}" for e in report["errors"]]


def test_wrong_example_output_is_refused_with_the_right_value(author: Any, walkthrough_files: dict) -> None:
    statement = walkthrough_files["statement.md"]
    assert '{"0": 4.3413, "2": 1.012}' in statement
    statement = statement.replace('{"0": 4.3413, "2": 1.012}', '{"0": 4.0, "2": 1.012}')
    report = _validate(author, {**walkthrough_files, "statement.md": statement})
    (error,) = report["errors"]
    assert error["file"] == "statement.md"
    assert error["line"] == statement[: statement.index('{"0": 4.0')].count("\n") + 1
    assert "example Output disagrees with the reference" in error["message"] and "['0']" in error["message"]
    assert "4.3413" in error["fix"]


def test_starter_that_passes_is_refused(author: Any, walkthrough_files: dict) -> None:
    files = {**walkthrough_files, "starter.py": walkthrough_files["solution.py"]}
    report = _validate(author, files)
    assert report["starter_verdict"] == "accepted"
    assert any(e.startswith("starter.py:") and "gives the answer away" in e for e in _errors(report)), report


def test_surviving_mutant_is_refused_and_named(author: Any, walkthrough_files: dict) -> None:
    files = {**walkthrough_files, "mutants/just_the_reference.py": walkthrough_files["solution.py"]}
    report = _validate(author, files)
    assert [e["file"] for e in report["errors"]] == ["mutants/just_the_reference.py"]
    assert "known-wrong solution is accepted" in report["errors"][0]["message"]
    survivor = next(m for m in report["mutants"] if m["name"] == "just_the_reference.py")
    # the walkthrough's four mutants and its cheat die; the reference copied as a mutant survives
    assert survivor["killed"] is False and report["mutation_score"] == "5/6"


def test_syntax_error_in_tests_is_refused_with_its_line(author: Any, walkthrough_files: dict) -> None:
    tests = walkthrough_files["tests.py"].replace(
        "def another_input(solution):", "def another_input(solution)"
    )
    report = _validate(author, {**walkthrough_files, "tests.py": tests})
    (error,) = report["errors"]
    assert error["file"] == "tests.py" and "syntax error" in error["message"]
    assert error["line"] == tests.splitlines().index("def another_input(solution)") + 1


def test_formula_that_does_not_render_is_refused(author: Any, walkthrough_files: dict) -> None:
    learn = walkthrough_files["learn.md"] + "\nA broken formula: $\\frac{1}{$.\n"
    report = _validate(author, {**walkthrough_files, "learn.md": learn})
    (error,) = report["errors"]
    assert error["file"] == "learn.md" and "does not render" in error["message"]
    assert error["line"] == learn.count("\n")


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        (
            {"problem.toml": 'title = "x"\ndifficulty = "impossible"\n'},
            "problem.toml: difficulty 'impossible'",
        ),
        ({"problem.toml": "title = \n"}, "problem.toml:1: invalid TOML: Invalid value (at line 1"),
        ({"notes.txt": "hi"}, "notes.txt: unexpected file in a problem folder"),
    ],
)
def test_format_errors_are_refused_before_running(
    author: Any, walkthrough_files: dict, change: dict[str, str], expected: str
) -> None:
    report = _validate(author, {**walkthrough_files, **change})
    assert expected in report["text"], report["text"]


def test_time_limit_out_of_bounds_is_refused(author: Any, walkthrough_files: dict) -> None:
    toml = walkthrough_files["problem.toml"].replace("time_s = 10", "time_s = 600")
    report = _validate(author, {**walkthrough_files, "problem.toml": toml})
    assert "limits.time_s must be a number in (0, 30.0]" in report["text"]


def test_publish_of_a_broken_draft_is_refused_and_nothing_goes_live(
    author: Any, learner: Any, walkthrough_files: dict
) -> None:
    files = {**walkthrough_files, "starter.py": walkthrough_files["solution.py"]}
    created = call(author, "POST", "/api/v1/authoring/problems", json={"slug": WALKTHROUGH, "files": files})
    assert created.status_code == 201, created.text
    refused = call(author, "POST", f"/api/v1/authoring/problems/{WALKTHROUGH}/publish")
    assert refused.status_code == 422
    body = refused.json()
    assert body["error"] == "validation_failed" and "starter.py" in body["detail"]
    assert body["report"]["ok"] is False
    assert learner.get(f"/problems/{WALKTHROUGH}").status_code == 404
    state = call(author, "GET", f"/api/v1/authoring/problems/{WALKTHROUGH}").json()
    assert state["published"] is False and state["live_version"] is None and state["source"] == "draft"
