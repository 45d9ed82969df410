"""A problem's editorial (``editorial.md``) through authoring: the editor form's Editorial field is
saved, validated and published, a blank field removes it, and the API, a zip's download and upload
and a re-save in the form keep it. Before, every route refused it as "not a problem file", so the
field could never be published and a problem imported with an editorial could not be saved."""

from __future__ import annotations

from typing import Any

import pytest

from app.authoring.validation import markdown_findings
from app.kit.db import Database
from app.kit.runner import JudgeRunner
from app.problems import repository as problems_repository
from app.problems.importer import import_problem
from runner.format.problem import ProblemFormatError, build_problem
from tests.app.authoring.helpers import WALKTHROUGH, call
from tests.app.authoring.people import zipped
from tests.app.authoring.test_authoring_versions import API, _form_data

EDITORIAL = "## Approaches\n\nNormalise each row: $y / \\lVert y \\rVert$.\n\n## Pitfalls\n\nA zero row.\n"


def live_files(author: Any) -> dict[str, str]:
    answer = call(author, "GET", f"{API}/{WALKTHROUGH}/export?source=live&format=json")
    assert answer.status_code == 200, answer.text
    files: dict[str, str] = answer.json()["files"]
    return files


def test_the_forms_editorial_is_saved_published_and_removed_when_blank(
    author: Any, learner: Any, walkthrough_files: dict[str, str]
) -> None:
    created = call(author, "POST", API, json={"slug": WALKTHROUGH, "files": walkthrough_files})
    assert created.status_code == 201, created.text
    csrf = author.csrf("/authoring")
    form = _form_data(walkthrough_files, WALKTHROUGH, csrf, editorial=EDITORIAL.replace("\n", "\r\n"))

    saved = author.post(f"/authoring/problems/{WALKTHROUGH}", data=form)
    assert saved.status_code == 200 and "not a problem file" not in saved.text, saved.text
    assert call(author, "GET", f"{API}/{WALKTHROUGH}").json()["files"]["editorial.md"] == EDITORIAL
    checked = author.post("/authoring/validate", data=form, headers={"X-CSRF-Token": csrf})
    assert checked.status_code == 200 and checked.json()["ok"], checked.json()
    published = author.post(f"/authoring/problems/{WALKTHROUGH}/publish", data=form)
    assert published.status_code == 303, published.text
    assert live_files(author)["editorial.md"] == EDITORIAL
    # The learner gives up: the published editorial opens.
    assert learner.post(f"/api/v1/problems/{WALKTHROUGH}/give-up", headers={
        "X-CSRF-Token": learner.csrf("/problems")}).status_code == 200  # fmt: skip
    shown = learner.get(f"/api/v1/problems/{WALKTHROUGH}/editorial")
    assert shown.status_code == 200 and "A zero row." in shown.text, shown.text

    # Re-saved in the form with other edits, the editorial stays; blanked, it goes.
    with_editorial = {**walkthrough_files, "editorial.md": EDITORIAL}
    retitled = _form_data(with_editorial, WALKTHROUGH, csrf, title="Renamed")
    assert author.post(f"/authoring/problems/{WALKTHROUGH}", data=retitled).status_code == 200
    assert call(author, "GET", f"{API}/{WALKTHROUGH}").json()["files"]["editorial.md"] == EDITORIAL
    blank = _form_data(with_editorial, WALKTHROUGH, csrf, editorial="")
    assert author.post(f"/authoring/problems/{WALKTHROUGH}/publish", data=blank).status_code == 303
    assert "editorial.md" not in live_files(author)
    assert learner.get(f"/api/v1/problems/{WALKTHROUGH}/editorial").status_code == 404  # none now


def test_the_api_and_a_zips_round_trip_keep_the_editorial(
    author: Any, walkthrough_files: dict[str, str]
) -> None:
    files = {**walkthrough_files, "editorial.md": EDITORIAL}
    created = call(author, "POST", API, json={"slug": WALKTHROUGH, "files": files})
    assert created.status_code == 201, created.text
    published = call(author, "POST", f"{API}/{WALKTHROUGH}/publish")
    assert published.status_code == 200, published.text
    assert live_files(author) == files
    downloaded = author.get(f"{API}/{WALKTHROUGH}/export?source=live")
    assert downloaded.status_code == 200
    copy = call(author, "POST", "/api/v1/authoring/import", data={"slug": "norms-with-editorial"},
                files={"file": ("p.zip", downloaded.content, "application/zip")})  # fmt: skip
    assert copy.status_code == 201, copy.text
    assert call(author, "GET", f"{API}/norms-with-editorial").json()["files"] == files


def test_every_route_refuses_an_editorial_a_post_would_refuse(
    author: Any, walkthrough_files: dict[str, str]
) -> None:
    """A NUL (which no post may hold: ``app.kit.user_text``) is refused by the create and save API,
    the editor's form and a zip upload, naming editorial.md; nothing is stored."""
    nul = {**walkthrough_files, "editorial.md": EDITORIAL.replace("A zero row.", "A zero\x00 row.")}
    refused = call(author, "POST", API, json={"slug": WALKTHROUGH, "files": nul})
    assert refused.status_code == 422 and "editorial.md" in refused.text and "NUL" in refused.text
    assert call(author, "GET", f"{API}/{WALKTHROUGH}").status_code == 404  # not created
    imported = call(author, "POST", "/api/v1/authoring/import",
                    files={"file": ("p.zip", zipped(WALKTHROUGH, nul), "application/zip")})  # fmt: skip
    assert imported.status_code == 422 and "editorial.md" in imported.text and "NUL" in imported.text
    assert call(author, "GET", f"{API}/{WALKTHROUGH}").status_code == 404

    files = {**walkthrough_files, "editorial.md": EDITORIAL}
    assert call(author, "POST", API, json={"slug": WALKTHROUGH, "files": files}).status_code == 201
    saved = call(author, "PUT", f"{API}/{WALKTHROUGH}", json={"files": nul})
    assert saved.status_code == 422 and "NUL" in saved.json()["detail"], saved.text
    form = _form_data(
        walkthrough_files, WALKTHROUGH, author.csrf("/authoring"), editorial=nul["editorial.md"]
    )
    page = author.post(f"/authoring/problems/{WALKTHROUGH}", data=form)
    assert page.status_code == 422 and "NUL" in page.text, page.text
    assert call(author, "GET", f"{API}/{WALKTHROUGH}").json()["files"]["editorial.md"] == EDITORIAL


def test_validation_reports_an_editorial_a_post_would_refuse(walkthrough_files: dict[str, str]) -> None:
    """A bank folder is read without the app's save checks: validation names the line."""
    clean = build_problem(WALKTHROUGH, {**walkthrough_files, "editorial.md": EDITORIAL})
    assert markdown_findings(clean)[0] == []
    text = EDITORIAL.replace("A zero row.", "A zero\x00 row.")
    errors, _warnings = markdown_findings(
        build_problem(WALKTHROUGH, {**walkthrough_files, "editorial.md": text})
    )
    assert [(e.file, e.line) for e in errors] == [("editorial.md", 7)]
    assert "NUL" in errors[0].message


def test_the_importer_refuses_an_editorial_a_post_would_refuse(
    db: Database, runner: JudgeRunner, walkthrough_files: dict[str, str]
) -> None:
    """``torchdrill problems import`` and publishing make versions through the importer: it refuses
    it too (a folder imported without --validate never reaches the save checks)."""
    nul = {**walkthrough_files, "editorial.md": EDITORIAL.replace("A zero row.", "A zero\x00 row.")}
    refused = pytest.raises(ProblemFormatError, match=r"^editorial\.md: The editorial holds a NUL")
    with refused, db.transaction() as session:
        import_problem(session, build_problem(WALKTHROUGH, nul), runner)
    with db.transaction() as session:
        assert problems_repository.get_by_slug(session, WALKTHROUGH) is None
