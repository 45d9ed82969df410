"""/api/v1/tracks and /api/v1/problems/{slug}/hints: tracks in order with the caller's progress,
one track's problems with marks, and hints revealed one at a time under the premium gate."""

from __future__ import annotations

from fastapi.testclient import TestClient


def _by_slug(items: list[dict]) -> dict[str, dict]:  # type: ignore[type-arg]
    return {t["slug"]: t for t in items}


def test_anonymous_callers_list_the_tracks_without_progress(app) -> None:
    body = TestClient(app).get("/api/v1/tracks").json()
    slugs = [t["slug"] for t in body["items"]]
    assert slugs.index("pytorch-advanced") < slugs.index("test-basics") < slugs.index("test-reductions")
    basics = _by_slug(body["items"])["test-basics"]
    assert basics["title"] == "Test Basics" and basics["problem_count"] == 2 and basics["progress"] is None
    assert basics["description"].startswith("Small problems")
    assert [p["slug"] for p in TestClient(app).get("/api/v1/tracks/test-basics").json()["problems"]] == [
        "add-tensors",
        "scale-rows",
    ]


def test_progress_and_marks_follow_the_callers_submissions(student, code_of) -> None:
    before = _by_slug(student.get("/api/v1/tracks").json()["items"])["test-basics"]["progress"]
    assert before == {"solved": 0, "attempted": 0, "total": 2, "next_problem": "add-tensors"}
    assert student.submit("add-tensors", code_of("add-tensors"), wait="true").json()["verdict"] == "accepted"
    tracks = _by_slug(student.get("/api/v1/tracks").json()["items"])
    assert tracks["test-basics"]["progress"] == {
        "solved": 1,
        "attempted": 1,
        "total": 2,
        "next_problem": "scale-rows",
    }
    assert tracks["test-reductions"]["progress"]["solved"] == 0
    one = student.get("/api/v1/tracks/test-basics").json()
    assert [(p["slug"], p["mark"], p["locked"]) for p in one["problems"]] == [
        ("add-tensors", "solved", False),
        ("scale-rows", None, True),
    ]
    assert one["progress"]["solved"] == 1


def test_an_unknown_track_is_a_404(student) -> None:
    missing = student.get("/api/v1/tracks/nope")
    assert missing.status_code == 404 and missing.json()["error"] == "not_found"


def test_hints_one_at_a_time_for_the_caller_only(student, make_account) -> None:
    assert student.get("/api/v1/problems/add-tensors/hints").json() == {
        "revealed": [],
        "total": 2,
        "remaining": 2,
        "locked": False,
    }
    first = student.post("/api/v1/problems/add-tensors/hints/next")
    assert first.status_code == 200 and first.json()["revealed"] == [
        "Tensors of the same shape add element by element."
    ]
    assert student.get("/api/v1/problems/add-tensors/hints").json()["remaining"] == 1
    other = make_account()
    assert other.get("/api/v1/problems/add-tensors/hints").json()["revealed"] == []  # remembered per learner
    student.post("/api/v1/problems/add-tensors/hints/next")
    last = student.post("/api/v1/problems/add-tensors/hints/next").json()
    assert len(last["revealed"]) == 2 and last["remaining"] == 0


def test_hints_need_a_token_to_reveal_and_premium_on_premium_problems(app, student, member) -> None:
    anonymous = TestClient(app)
    assert anonymous.get("/api/v1/problems/add-tensors/hints").json()["revealed"] == []
    refused = anonymous.post("/api/v1/problems/add-tensors/hints/next")
    assert refused.status_code == 401
    locked = student.post("/api/v1/problems/scale-rows/hints/next")
    assert locked.status_code == 403 and locked.json()["error"] == "premium_required"
    assert student.get("/api/v1/problems/scale-rows/hints").json() == {
        "revealed": [],
        "total": 3,
        "remaining": 0,
        "locked": True,
    }
    assert member.post("/api/v1/problems/scale-rows/hints/next").json()["remaining"] == 2
    assert student.post("/api/v1/problems/nope/hints/next").status_code == 404


def test_tracks_and_hints_are_in_the_openapi_schema(app) -> None:
    paths = TestClient(app).get("/api/v1/openapi.json").json()["paths"]
    assert {"/api/v1/tracks", "/api/v1/tracks/{slug}", "/api/v1/problems/{slug}/hints"} <= set(paths)
    assert "post" in paths["/api/v1/problems/{slug}/hints/next"]


def test_a_problem_names_its_place_in_its_track_and_its_hint_count(student) -> None:
    second = student.get("/api/v1/problems/scale-rows").json()  # locked for this student: still listed
    assert second["track"] == {
        "slug": "test-basics",
        "title": "Test Basics",
        "position": 2,
        "total": 2,
        "previous": "add-tensors",
        "next": "sum-of-squares",  # the end of its track: the next track's first (the one order)
    }
    assert second["hint_count"] == 3
    first = student.get("/api/v1/problems/add-tensors").json()
    assert first["track"]["previous"] is None and first["track"]["next"] == "scale-rows"
