"""Drafts, publishing and versions through the API and the editor pages; who may author."""

from __future__ import annotations

import uuid
from typing import Any

from fastapi.testclient import TestClient

from app.accounts.service import sign_up
from app.accounts.tokens import create_token
from app.authoring.forms import EditorForm
from app.kit.db import utcnow
from tests.app.authoring.helpers import PASSWORD, WALKTHROUGH, call

API = "/api/v1/authoring/problems"


def _publish_walkthrough(author: Any, files: dict[str, str]) -> None:
    assert call(author, "POST", API, json={"slug": WALKTHROUGH, "files": files}).status_code == 201
    published = call(author, "POST", f"{API}/{WALKTHROUGH}/publish")
    assert published.status_code == 200, published.text


def test_only_instructors_author(learner: Any, browser: Any) -> None:
    assert learner.get("/authoring").status_code == 403
    forbidden = learner.get(f"{API}")
    assert forbidden.status_code == 403 and forbidden.json()["error"] == "forbidden"
    assert call(learner, "POST", API, json={"slug": "x-y", "files": {}}).json()["error"] == "forbidden"
    anonymous = browser.get(API)
    assert anonymous.status_code == 401 and anonymous.json() == {
        "error": "login_required",
        "detail": "Log in to do this.",
    }
    assert browser.get("/authoring").headers["location"].startswith("/login?next=")
    assert "/authoring" not in learner.get("/problems").text  # no nav link for students


def test_writes_need_the_csrf_token(author: Any, walkthrough_files: dict[str, str]) -> None:
    response = author.post(API, json={"slug": WALKTHROUGH, "files": walkthrough_files})
    assert response.status_code == 403 and response.json()["error"] == "csrf_failed"


def test_publishing_a_saved_draft_creates_a_version_and_old_submissions_keep_theirs(
    author: Any, learner: Any, walkthrough_files: dict[str, str]
) -> None:
    _publish_walkthrough(author, walkthrough_files)
    first = learner.verdict(learner.submit(WALKTHROUGH, walkthrough_files["solution.py"]).json()["id"])
    assert first["verdict"] == "accepted"

    changed = {**walkthrough_files, "learn.md": walkthrough_files["learn.md"] + "\nOne more pitfall.\n"}
    saved = call(author, "PUT", f"{API}/{WALKTHROUGH}", json={"files": changed})
    assert saved.status_code == 200, saved.text
    assert saved.json()["live_version"] == 1 and "still see version 1" in saved.json()["message"]
    assert "One more pitfall." not in learner.get(f"/problems/{WALKTHROUGH}").text  # a save is a draft
    published = call(author, "POST", f"{API}/{WALKTHROUGH}/publish").json()
    assert published["live_version"] == 2 and published["message"] == "Published: students now see version 2."
    assert "One more pitfall." in learner.get(f"/problems/{WALKTHROUGH}").text

    second = learner.verdict(learner.submit(WALKTHROUGH, walkthrough_files["solution.py"]).json()["id"])
    assert second["problem_version_id"] != first["problem_version_id"]
    again = learner.get(f"/api/submissions/{first['id']}").json()
    assert again["problem_version_id"] == first["problem_version_id"] and again["verdict"] == "accepted"

    # a draft that fails validation is saved; publishing it is refused; students keep version 2
    broken = {**changed, "starter.py": walkthrough_files["solution.py"], "learn.md": "Draft words.\n"}
    kept = call(author, "PUT", f"{API}/{WALKTHROUGH}", json={"files": broken}).json()
    assert kept["live_version"] == 2 and "Saved as a draft" in kept["message"]
    refused = call(author, "POST", f"{API}/{WALKTHROUGH}/publish")
    assert refused.status_code == 422 and refused.json()["report"]["ok"] is False
    assert "Draft words." not in learner.get(f"/problems/{WALKTHROUGH}").text
    state = call(author, "GET", f"{API}/{WALKTHROUGH}").json()
    assert (state["source"], state["live_version"], state["files"]["learn.md"]) == (
        "draft",
        2,
        "Draft words.\n",
    )
    assert [v["number"] for v in state["versions"]] == [1, 2]

    assert call(author, "DELETE", f"{API}/{WALKTHROUGH}/draft").status_code == 204
    state = call(author, "GET", f"{API}/{WALKTHROUGH}").json()
    assert state["source"] == "live" and state["files"] == changed

    # unpublish hides it from students; publishing the same files again creates no version
    assert call(author, "POST", f"{API}/{WALKTHROUGH}/unpublish").json()["published"] is False
    assert learner.get(f"/problems/{WALKTHROUGH}").status_code == 404
    assert learner.submit(WALKTHROUGH, walkthrough_files["solution.py"]).status_code == 404
    listed = {p["slug"]: p for p in call(author, "GET", API).json()["problems"]}
    assert listed[WALKTHROUGH]["status"] == "unpublished"
    republished = call(author, "POST", f"{API}/{WALKTHROUGH}/publish").json()
    assert republished["live_version"] == 2
    assert learner.get(f"/problems/{WALKTHROUGH}").status_code == 200


def test_creating_twice_or_with_a_bad_slug_is_refused(author: Any, walkthrough_files: dict[str, str]) -> None:
    assert (
        call(author, "POST", API, json={"slug": WALKTHROUGH, "files": walkthrough_files}).status_code == 201
    )
    again = call(author, "POST", API, json={"slug": WALKTHROUGH, "files": walkthrough_files})
    assert again.status_code == 409 and again.json()["error"] == "conflict"
    bad = call(author, "POST", API, json={"slug": "Bad Slug", "files": walkthrough_files})
    assert bad.status_code == 422 and "slug 'Bad Slug' is not valid" in bad.json()["detail"]
    missing = {k: v for k, v in walkthrough_files.items() if k != "tests.py"}
    refused = call(author, "POST", API, json={"slug": "other-slug", "files": missing})
    assert refused.status_code == 422 and refused.json() == {
        "error": "invalid_problem",
        "detail": "tests.py: file is missing",
    }


def _form_data(files: dict[str, str], slug: str, csrf: str, **overrides: str) -> dict[str, Any]:
    """The editor form as a browser posts it (CRLF line ends in text areas, an empty mutant slot)."""
    form = EditorForm.from_files(slug, files)
    crlf = {k: v.replace("\n", "\r\n") for k, v in vars(form).items() if isinstance(v, str)}
    data: dict[str, Any] = {**crlf, **overrides, "csrf_token": csrf}
    data["mutant_name"] = [name for name, _ in form.mutants] + [""]
    data["mutant_code"] = [code.replace("\n", "\r\n") for _, code in form.mutants] + [""]
    data["hint"] = [*form.hints, ""]  # three boxes, the last ones empty
    return data


def test_the_editor_pages_create_validate_publish_and_version(
    author: Any, learner: Any, walkthrough_files: dict[str, str]
) -> None:
    page = author.get("/authoring/new")
    assert (
        page.status_code == 200 and 'id="author-form"' in page.text and "/static/js/authoring." in page.text
    )
    csrf = author.csrf("/authoring")

    checked = author.post(
        "/authoring/validate",
        data=_form_data(walkthrough_files, WALKTHROUGH, csrf),
        headers={"X-CSRF-Token": csrf},
    )
    assert checked.status_code == 200 and checked.json()["ok"], checked.json()["text"]

    created = author.post("/authoring/new", data=_form_data(walkthrough_files, WALKTHROUGH, csrf))
    assert (
        created.status_code == 303
        and created.headers["location"] == f"/authoring/problems/{WALKTHROUGH}?notice=created"
    )
    editor = author.get(created.headers["location"])
    assert "Draft · never published" in editor.text and "Draft created." in editor.text
    assert WALKTHROUGH in author.get("/authoring").text
    assert WALKTHROUGH not in learner.get("/problems").text

    published = author.post(f"/authoring/problems/{WALKTHROUGH}/publish", data={"csrf_token": csrf})
    assert published.status_code == 303
    assert "Published · live v1" in author.get(published.headers["location"]).text
    live = call(author, "GET", f"{API}/{WALKTHROUGH}/export?source=live&format=json").json()["files"]
    assert live == walkthrough_files  # CRLF from the browser undone, problem.toml kept byte for byte

    renamed = author.post(
        f"/authoring/problems/{WALKTHROUGH}",
        data=_form_data(walkthrough_files, WALKTHROUGH, csrf, title="Hook Every Linear Layer"),
    )
    assert renamed.status_code == 200 and "Students still see version 1 until you publish." in renamed.text
    assert "Hook Every Linear Layer" not in learner.get(f"/problems/{WALKTHROUGH}").text
    republished = author.post(f"/authoring/problems/{WALKTHROUGH}/publish", data={"csrf_token": csrf})
    assert republished.headers["location"].endswith("?notice=published&version=2")
    assert "Published: students now see version 2." in author.get(republished.headers["location"]).text
    assert "Hook Every Linear Layer" in learner.get(f"/problems/{WALKTHROUGH}").text
    toml = call(author, "GET", f"{API}/{WALKTHROUGH}").json()["files"]["problem.toml"]
    assert 'title = "Hook Every Linear Layer"' in toml and "time_s = 10" in toml
    assert "order = 10" in toml and "a closure over the loop variable" in toml  # re-rendered, kept

    unpublished = author.post(f"/authoring/problems/{WALKTHROUGH}/unpublish", data={"csrf_token": csrf})
    assert unpublished.status_code == 303
    assert learner.get(f"/problems/{WALKTHROUGH}").status_code == 404


def test_the_editor_shows_a_refused_publish_with_its_report(
    author: Any, walkthrough_files: dict[str, str]
) -> None:
    broken = {**walkthrough_files, "starter.py": walkthrough_files["solution.py"]}
    assert call(author, "POST", API, json={"slug": WALKTHROUGH, "files": broken}).status_code == 201
    csrf = author.csrf("/authoring")
    refused = author.post(f"/authoring/problems/{WALKTHROUGH}/publish", data={"csrf_token": csrf})
    assert refused.status_code == 422
    assert "did not pass validation" in refused.text and "gives the answer away" in refused.text


def test_preview_renders_like_the_problem_page_and_sanitizes(author: Any) -> None:
    html = call(
        author,
        "POST",
        "/api/v1/authoring/preview",
        json={"markdown": "# T\n\n$x^2$ <script>alert(1)</script>"},
    ).json()["html"]
    assert "<math" in html and "<script" not in html


def test_an_editorial_previews_as_the_editorial_page_shows_it(author: Any) -> None:
    """An editorial is user text: no raw HTML and no image from another host, in its preview too."""
    text = "$x^2$ <b>raw</b> ![pixel](https://tracker.invalid/p.png) ![ours](/static/a.png)"
    as_statement = call(author, "POST", "/api/v1/authoring/preview", json={"markdown": text}).json()["html"]
    assert "<b>raw</b>" in as_statement and "tracker.invalid" in as_statement  # so the check below can fail
    html = call(
        author, "POST", "/api/v1/authoring/preview", json={"markdown": text, "kind": "editorial"}
    ).json()["html"]
    assert "<math" in html and "&lt;b&gt;raw&lt;/b&gt;" in html
    assert "tracker.invalid" not in html and 'src="/static/a.png"' in html
    refused = call(author, "POST", "/api/v1/authoring/preview", json={"markdown": text, "kind": "script"})
    assert refused.status_code == 422


def test_api_tokens_author_without_csrf(app: Any, db: Any, walkthrough_files: dict[str, str]) -> None:
    with db.transaction() as session:
        teacher = sign_up(session, f"t-{uuid.uuid4().hex[:8]}@example.com", PASSWORD, role="admin")
        _row, token = create_token(session, teacher, "ci", utcnow())
        student = sign_up(session, f"s-{uuid.uuid4().hex[:8]}@example.com", PASSWORD)
        _row, student_token = create_token(session, student, "cli", utcnow())
    client = TestClient(app)
    bearer = {"Authorization": f"Bearer {token}"}
    created = client.post(API, json={"slug": WALKTHROUGH, "files": walkthrough_files}, headers=bearer)
    assert created.status_code == 201, created.text
    exported = client.get(f"{API}/{WALKTHROUGH}/export?source=draft&format=json", headers=bearer)
    assert exported.json()["files"] == walkthrough_files
    refused = client.get(API, headers={"Authorization": f"Bearer {student_token}"})
    assert refused.status_code == 403 and refused.json()["error"] == "forbidden"
    unknown = client.get(API, headers={"Authorization": "Bearer not-a-token"})
    assert unknown.status_code == 401 and unknown.json()["error"] == "invalid_token"


def test_publish_from_the_editor_publishes_the_form_on_screen(
    author: Any, learner: Any, walkthrough_files: dict[str, str]
) -> None:
    _publish_walkthrough(author, walkthrough_files)
    csrf = author.csrf("/authoring")
    edited = _form_data(walkthrough_files, WALKTHROUGH, csrf, title="Renamed Without Saving")
    published = author.post(f"/authoring/problems/{WALKTHROUGH}/publish", data=edited)
    assert published.status_code == 303, published.text
    editor = author.get(published.headers["location"]).text
    assert "Published · live v2" in editor and "Renamed Without Saving" in editor
    assert "Renamed Without Saving" in learner.get(f"/problems/{WALKTHROUGH}").text


def test_a_refused_publish_from_the_editor_keeps_the_edits_as_the_draft(
    author: Any, learner: Any, walkthrough_files: dict[str, str]
) -> None:
    _publish_walkthrough(author, walkthrough_files)
    csrf = author.csrf("/authoring")
    broken = _form_data(
        walkthrough_files, WALKTHROUGH, csrf, title="Kept Title", starter=walkthrough_files["solution.py"]
    )
    refused = author.post(f"/authoring/problems/{WALKTHROUGH}/publish", data=broken)
    assert refused.status_code == 422
    assert "did not pass validation" in refused.text and "saved as the draft" in refused.text
    assert 'value="Kept Title"' in refused.text  # the edits are still on screen
    state = call(author, "GET", f"{API}/{WALKTHROUGH}").json()
    assert state["source"] == "draft" and state["live_version"] == 1
    assert "Kept Title" not in learner.get(f"/problems/{WALKTHROUGH}").text


def test_the_submission_page_numbers_versions_like_the_authoring_page(
    author: Any, learner: Any, walkthrough_files: dict[str, str]
) -> None:
    _publish_walkthrough(author, walkthrough_files)
    first = learner.verdict(learner.submit(WALKTHROUGH, walkthrough_files["solution.py"]).json()["id"])
    assert 'id="problem-version">v1 (live)' in learner.get(f"/submissions/{first['id']}").text
    changed = {**walkthrough_files, "learn.md": walkthrough_files["learn.md"] + "\nMore.\n"}
    assert call(author, "PUT", f"{API}/{WALKTHROUGH}", json={"files": changed}).json()["live_version"] == 1
    assert call(author, "POST", f"{API}/{WALKTHROUGH}/publish").json()["live_version"] == 2
    assert 'id="problem-version">v1 (v2 is live now)' in learner.get(f"/submissions/{first['id']}").text


def test_the_editor_offers_the_tracks_and_refuses_another_category(
    author: Any, walkthrough_files: dict[str, str]
) -> None:
    page = author.get("/authoring/new").text
    assert '<select id="f-category" name="category" required' in page
    assert '<option value="Test Basics">Test Basics</option>' in page
    assert '<option value="PyTorch Advanced">PyTorch Advanced</option>' in page
    assert 'name="hint"' in page and 'id="f-order"' in page
    csrf = author.csrf("/authoring")
    checked = author.post(
        "/authoring/validate",
        data=_form_data(walkthrough_files, WALKTHROUGH, csrf, category="Hooks"),
        headers={"X-CSRF-Token": csrf},
    ).json()
    assert not checked["ok"]
    assert (
        "problem.toml: category 'Hooks' is not a track; use one of: 'PyTorch Advanced', 'Test Basics'"
        in checked["text"]
    )
    form = _form_data(walkthrough_files, WALKTHROUGH, csrf, order="3")
    form["hint"] = ["Only one hint.", "", ""]
    created = author.post("/authoring/new", data=form)
    assert created.status_code == 303
    toml = call(author, "GET", f"{API}/{WALKTHROUGH}").json()["files"]["problem.toml"]
    assert "order = 3" in toml and 'hints = [\n  "Only one hint.",\n]' in toml
    editor = author.get(f"/authoring/problems/{WALKTHROUGH}").text
    assert 'value="3"' in editor and ">Only one hint.</textarea>" in editor
    assert '<option value="PyTorch Advanced" selected>' in editor
