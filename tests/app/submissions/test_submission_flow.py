"""Run/submit through the page's JSON endpoints, judged by the real sandboxed runner."""

from __future__ import annotations

from collections.abc import Callable


def test_reference_solution_is_accepted(learner, code_of: Callable[..., str]) -> None:
    created = learner.submit("add-tensors", code_of("add-tensors"), "submit")
    assert created.status_code == 202
    assert created.json()["status"] in ("queued", "running", "finished")
    result = learner.verdict(created.json()["id"])
    assert result["status"] == "finished"
    assert result["verdict"] == "accepted"
    assert (result["passed"], result["total"]) == (3, 3)
    assert result["runtime"]["torch"]
    assert result["started_at"] and result["finished_at"]


def test_run_mode_only_runs_public_cases(learner, code_of: Callable[..., str]) -> None:
    result = learner.verdict(learner.submit("add-tensors", code_of("add-tensors"), "run").json()["id"])
    assert result["verdict"] == "accepted"
    assert [c["name"] for c in result["cases"]] == ["example"]
    assert result["cases"][0]["expected"] == result["cases"][0]["actual"]


def test_wrong_solution_names_the_failing_case(learner, code_of: Callable[..., str]) -> None:
    result = learner.verdict(
        learner.submit("add-tensors", code_of("add-tensors", "mutants/subtracts.py")).json()["id"]
    )
    assert result["verdict"] == "wrong_answer"
    assert result["passed"] == 0 and result["total"] == 3
    public = [c for c in result["cases"] if c["public"]]
    hidden = [c for c in result["cases"] if not c["public"]]
    assert public[0]["status"] == "failed"
    assert "4.0, 6.0" in public[0]["expected"] and "-2.0" in public[0]["actual"]
    assert hidden and all("expected" not in c and "actual" not in c and "stdout" not in c for c in hidden)


def test_runtime_error_is_a_verdict_not_a_server_error(learner) -> None:
    code = "def add(a, b):\n    raise ValueError('boom')\n"
    result = learner.verdict(learner.submit("add-tensors", code, "run").json()["id"])
    assert result["verdict"] == "runtime_error"
    assert "boom" in (result["cases"][0]["message"] + result["message"])


def test_submission_page_and_history(learner, code_of: Callable[..., str]) -> None:
    sid = learner.submit("add-tensors", code_of("add-tensors")).json()["id"]
    learner.verdict(sid)
    page = learner.get(f"/submissions/{sid}")
    assert page.status_code == 200
    assert "Accepted" in page.text and "3/3" in page.text
    assert '<span class="k">return</span>' in page.text or "return" in page.text
    history = learner.get("/api/problems/add-tensors/submissions").json()["submissions"]
    assert [s["id"] for s in history] == [sid]
    problem_page = learner.get("/problems/add-tensors").text
    assert f'href="/submissions/{sid}"' in problem_page
    assert "return a + b" in problem_page  # the editor starts from the learner's latest code


def test_other_users_submissions_are_not_found(learner, new_browser, code_of: Callable[..., str]) -> None:
    sid = learner.submit("add-tensors", code_of("add-tensors")).json()["id"]
    learner.verdict(sid)
    other = new_browser()
    other.signup()
    api = other.get(f"/api/submissions/{sid}")
    assert api.status_code == 404 and api.json()["error"] == "not_found"
    assert other.get(f"/submissions/{sid}").status_code == 404
    assert other.get("/api/problems/add-tensors/submissions").json()["submissions"] == []


def test_anonymous_visitors_must_log_in(browser) -> None:
    token = browser.csrf()
    response = browser.post(
        "/api/problems/add-tensors/submissions",
        json={"code": "x = 1", "mode": "run"},
        headers={"X-CSRF-Token": token},
    )
    assert response.status_code == 401
    assert response.json()["error"] == "login_required"
    page = browser.get("/submissions/1")
    assert page.status_code == 303 and page.headers["location"].startswith("/login?next=")
    assert "Sign up to run and submit" in browser.get("/problems/add-tensors").text


def test_bad_input_is_a_clear_error(learner, app) -> None:
    empty = learner.submit("add-tensors", "   \n", "run")
    assert empty.status_code == 422 and "empty" in empty.json()["detail"]
    huge = learner.submit("add-tensors", "#" * (app.state.settings.max_code_bytes + 1), "run")
    assert huge.status_code == 413 and huge.json()["error"] == "payload_too_large"
    bad_mode = learner.submit("add-tensors", "x = 1", "explode")
    assert bad_mode.status_code == 422 and bad_mode.json()["error"] == "invalid_input"
    missing = learner.submit("no-such-problem", "x = 1", "run")
    assert missing.status_code == 404 and missing.json()["error"] == "not_found"
    assert learner.get("/api/problems/add-tensors/submissions").json()["submissions"] == []


def test_json_endpoint_refuses_missing_or_wrong_csrf(learner) -> None:
    body = {"code": "x = 1", "mode": "run"}
    missing = learner.post("/api/problems/add-tensors/submissions", json=body)
    wrong = learner.post("/api/problems/add-tensors/submissions", json=body, headers={"X-CSRF-Token": "nope"})
    for response in (missing, wrong):
        assert response.status_code == 403 and response.json()["error"] == "csrf_failed"
    assert learner.get("/api/problems/add-tensors/submissions").json()["submissions"] == []
