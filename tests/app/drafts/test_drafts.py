"""Server-side drafts: saved per user and problem, restored on the problem page, private to their owner."""

from __future__ import annotations

from collections.abc import Callable

from tests.app.conftest import Browser


def put_draft(b: Browser, slug: str, code: str) -> object:
    return b.put(f"/api/problems/{slug}/draft", json={"code": code}, headers={"X-CSRF-Token": b.csrf()})


def test_draft_round_trip_and_restore_on_the_page(learner: Browser) -> None:
    assert learner.get("/api/problems/add-tensors/draft").status_code == 404
    saved = put_draft(learner, "add-tensors", "def add(a, b):\n    return 42  # draft\n")
    assert saved.status_code == 200
    assert saved.json()["code"].endswith("# draft\n")
    again = put_draft(learner, "add-tensors", "def add(a, b):\n    return 43  # second\n")
    assert again.status_code == 200
    got = learner.get("/api/problems/add-tensors/draft").json()
    assert got["code"] == "def add(a, b):\n    return 43  # second\n" and got["problem"] == "add-tensors"
    assert "return 43  # second" in learner.get("/problems/add-tensors").text


def test_draft_wins_over_the_latest_submission(learner: Browser, code_of: Callable[..., str]) -> None:
    learner.verdict(learner.submit("add-tensors", code_of("add-tensors"), "run").json()["id"])
    assert "return a + b" in learner.get("/problems/add-tensors").text
    put_draft(learner, "add-tensors", "# newer than my run\n")
    editor = learner.get("/problems/add-tensors").text.split('id="code"')[1].split("</textarea>")[0]
    assert "# newer than my run" in editor and "return a + b" not in editor


def test_drafts_are_private(learner: Browser, new_browser: Callable[[], Browser]) -> None:
    put_draft(learner, "add-tensors", "# mine\n")
    other = new_browser()
    assert other.signup().status_code == 303
    assert other.get("/api/problems/add-tensors/draft").status_code == 404
    assert "# mine" not in other.get("/problems/add-tensors").text
    anonymous = new_browser()
    response = anonymous.get("/api/problems/add-tensors/draft")
    assert response.status_code == 401 and response.json()["error"] == "login_required"


def test_draft_writes_need_csrf_access_and_a_sane_size(learner: Browser) -> None:
    no_csrf = learner.put("/api/problems/add-tensors/draft", json={"code": "x"})
    assert no_csrf.status_code == 403
    assert put_draft(learner, "scale-rows", "# premium problem\n").status_code == 403
    assert put_draft(learner, "no-such-problem", "x").status_code == 404
    assert put_draft(learner, "add-tensors", "x" * (64 * 1024 + 1)).status_code == 413


def test_delete_draft(learner: Browser) -> None:
    put_draft(learner, "add-tensors", "# gone soon\n")
    response = learner.delete("/api/problems/add-tensors/draft", headers={"X-CSRF-Token": learner.csrf()})
    assert response.status_code == 204
    assert learner.get("/api/problems/add-tensors/draft").status_code == 404
