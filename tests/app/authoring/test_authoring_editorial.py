"""A problem's editorial (``editorial.md``) through authoring: the editor form's Editorial field is
saved, validated and published, a blank field removes it, and the API, a zip's download and upload
and a re-save in the form keep it. Before, every route refused it as "not a problem file", so the
field could never be published and a problem imported with an editorial could not be saved."""

from __future__ import annotations

from typing import Any

from tests.app.authoring.helpers import WALKTHROUGH, call
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
