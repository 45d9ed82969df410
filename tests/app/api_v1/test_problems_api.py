"""/api/v1/problems: listing, filters, pagination, and the premium gate on one problem."""

from __future__ import annotations

from fastapi.testclient import TestClient


def test_list_filters_and_pagination(app, student) -> None:
    everything = student.get("/api/v1/problems").json()
    slugs = [p["slug"] for p in everything["items"]]
    assert slugs == ["add-tensors", "scale-rows", "sum-of-squares"] and everything["next"] is None
    locked = {p["slug"]: p["locked"] for p in everything["items"]}
    assert locked == {"add-tensors": False, "scale-rows": True, "sum-of-squares": False}
    assert set(everything["items"][0]) == {"slug", "title", "difficulty", "category", "tags", "premium",
                                           "locked", "solved"}  # fmt: skip

    first = student.get("/api/v1/problems", params={"limit": 2}).json()
    assert [p["slug"] for p in first["items"]] == slugs[:2]
    second = student.get(first["next"]).json()
    assert [p["slug"] for p in second["items"]] == slugs[2:] and second["next"] is None
    walked, url = [], "/api/v1/problems?limit=1"  # keyset pages: each problem once, in list order
    while url:
        page = student.get(url).json()
        walked += [p["slug"] for p in page["items"]]
        url = page["next"]
    assert walked == slugs
    forged = student.get("/api/v1/problems?after=not-a-cursor")
    assert forged.status_code == 422 and "cursor" in forged.json()["detail"]

    assert [p["slug"] for p in student.get("/api/v1/problems?difficulty=hard").json()["items"]] == [
        "sum-of-squares"
    ]
    assert [p["slug"] for p in student.get("/api/v1/problems?tag=broadcasting").json()["items"]] == [
        "scale-rows"
    ]
    by_category = student.get("/api/v1/problems", params={"category": "Test Reductions"}).json()["items"]
    assert [p["slug"] for p in by_category] == ["sum-of-squares"]
    bad = student.get("/api/v1/problems?difficulty=impossible")
    assert bad.status_code == 422 and bad.json()["error"] == "invalid_input"
    assert TestClient(app).get("/api/v1/problems").status_code == 200  # anonymous listing is allowed


def test_locked_problem_hides_everything_premium(student) -> None:
    body = student.get("/api/v1/problems/scale-rows").json()
    assert body["locked"] is True and body["premium"] is True
    assert "multiplies row" in body["statement"]
    assert "Give `s` a trailing dimension" in body["learn"] and body["learn_truncated"] is True
    text = str(body)
    assert "PREMIUM-ONLY-SECRET" not in text and "The full trick" not in text
    assert body["starter_code"] is None and body["reference_solution"] is None
    assert "unsqueeze" not in text  # the reference solution's trick
    assert body["examples"] and body["examples"][0]["name"] == "example"
    assert body["runtime"]["torch"]


def test_premium_member_sees_everything_and_reference_after_accepted(member, code_of) -> None:
    body = member.get("/api/v1/problems/scale-rows").json()
    assert body["locked"] is False and "PREMIUM-ONLY-SECRET" in body["learn"]
    assert "raise NotImplementedError" in body["starter_code"]
    assert body["reference_solution"] is None  # not before an accepted submission
    result = member.submit("scale-rows", code_of("scale-rows"), wait="true").json()
    assert result["verdict"] == "accepted"
    body = member.get("/api/v1/problems/scale-rows").json()
    assert body["solved"] is True and body["reference_solution"] == code_of("scale-rows")
    listed = {p["slug"]: p for p in member.get("/api/v1/problems").json()["items"]}
    assert listed["scale-rows"]["solved"] is True and listed["add-tensors"]["solved"] is False


def test_related_problems_carry_the_lock(student) -> None:
    related = student.get("/api/v1/problems/add-tensors").json()["related"]
    assert {"slug": "scale-rows", "locked": True, "premium": True}.items() <= related[0].items()


def test_unknown_problem_is_404(student) -> None:
    for slug in ("no-such-problem", "x" * 150, "nul%00byte"):
        response = student.get(f"/api/v1/problems/{slug}")
        assert response.status_code == 404 and response.json()["error"] == "not_found", slug
