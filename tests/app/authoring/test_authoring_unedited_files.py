"""The web editor edits problem.toml's fields, the Markdown, the code and the mutants; the other files
of a problem (its accepted ``alternatives/``) are kept through a save, a validation and a publish
from the form — an imported problem never loses them by being re-saved in the browser."""

from __future__ import annotations

from typing import Any

from tests.app.authoring.helpers import WALKTHROUGH, call
from tests.app.authoring.test_authoring_versions import API, _form_data

ALTERNATIVE = "alternatives/with_a_comment.py"


def test_saving_validating_and_publishing_from_the_form_keep_the_alternatives(
    author: Any, walkthrough_files: dict[str, str]
) -> None:
    imported = {
        **walkthrough_files,
        ALTERNATIVE: "# The same idea, written again.\n" + walkthrough_files["solution.py"],
    }
    created = call(author, "POST", API, json={"slug": WALKTHROUGH, "files": imported})
    assert created.status_code == 201, created.text
    assert call(author, "POST", f"{API}/{WALKTHROUGH}/publish").status_code == 200
    csrf = author.csrf("/authoring")
    form = _form_data(walkthrough_files, WALKTHROUGH, csrf, title="Renamed In The Browser")
    assert ALTERNATIVE not in str(form)  # the form has no field for it

    saved = author.post(f"/authoring/problems/{WALKTHROUGH}", data=form)
    assert saved.status_code == 200, saved.text
    draft = call(author, "GET", f"{API}/{WALKTHROUGH}").json()
    assert draft["source"] == "draft" and draft["files"][ALTERNATIVE] == imported[ALTERNATIVE]
    assert 'title = "Renamed In The Browser"' in draft["files"]["problem.toml"]

    checked = author.post("/authoring/validate", data=form, headers={"X-CSRF-Token": csrf})
    assert checked.status_code == 200 and checked.json()["ok"], checked.json()["text"]

    published = author.post(f"/authoring/problems/{WALKTHROUGH}/publish", data=form)
    assert published.status_code == 303, published.text
    live = call(author, "GET", f"{API}/{WALKTHROUGH}/export?source=live&format=json").json()["files"]
    assert live[ALTERNATIVE] == imported[ALTERNATIVE] and live["tests.py"] == walkthrough_files["tests.py"]

    # A mutant removed in the form is removed (the form edits mutants); the alternative stays.
    mutants = [rel for rel in walkthrough_files if rel.startswith("mutants/")]
    if mutants:
        fewer = {k: v for k, v in walkthrough_files.items() if k != mutants[0]}
        resaved = author.post(f"/authoring/problems/{WALKTHROUGH}", data=_form_data(fewer, WALKTHROUGH, csrf))
        assert resaved.status_code == 200, resaved.text
        files = call(author, "GET", f"{API}/{WALKTHROUGH}").json()["files"]
        assert mutants[0] not in files and files[ALTERNATIVE] == imported[ALTERNATIVE]


def test_an_alternative_with_a_bad_name_is_refused(author: Any, walkthrough_files: dict[str, str]) -> None:
    for rel in ("alternatives/../solution.py", "alternatives/x.txt", "alternatives/a/b.py", "other/x.py"):
        answer = call(
            author, "POST", API, json={"slug": WALKTHROUGH, "files": {**walkthrough_files, rel: "x = 1\n"}}
        )
        assert answer.status_code == 422, (rel, answer.text)
        assert "not a problem file" in answer.json()["detail"]
