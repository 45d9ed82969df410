"""The problem docs/authoring.md writes: validates, imports, publishes, is solvable; mutants lose."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from tests.app.authoring.helpers import WALKTHROUGH, call

DOC = Path(__file__).resolve().parents[3] / "docs" / "authoring.md"
FILE_MARK = re.compile(r"<!-- file: ([\w./-]+) -->\n+(`{3,})[a-z]*\n(.*?)^\2$", re.S | re.M)


def doc_files() -> dict[str, str]:
    """Every file the walkthrough spells out, by the path in its ``<!-- file: ... -->`` mark."""
    return {path: body for path, _fence, body in FILE_MARK.findall(DOC.read_text(encoding="utf-8"))}


def test_the_walkthrough_in_the_docs_is_the_fixture_problem(walkthrough_files: dict[str, str]) -> None:
    written = doc_files()
    assert set(written) == set(walkthrough_files), "docs/authoring.md and the fixture list different files"
    for rel, text in walkthrough_files.items():
        assert written[rel] == text, f"docs/authoring.md shows a different {rel} than tests/.../{WALKTHROUGH}"


def test_walkthrough_problem_validates_publishes_and_is_solvable(
    author: Any, learner: Any, walkthrough_files: dict[str, str]
) -> None:
    files = doc_files()  # the problem exactly as a reader of the docs writes it

    # validation needs no saved problem: files can be checked before anything is stored
    report = call(
        author, "POST", f"/api/v1/authoring/problems/{WALKTHROUGH}/validate", json={"files": files}
    ).json()
    assert report["ok"], report["text"]
    assert report["mutation_score"] == "5/5"
    assert {m["name"] for m in report["mutants"] if m["killed"]} == {
        "cheat_global_hook.py", "hooks_every_module.py", "hooks_not_removed.py", "late_binding.py",
        "no_hooks.py",
    }  # fmt: skip

    created = call(author, "POST", "/api/v1/authoring/problems", json={"slug": WALKTHROUGH, "files": files})
    assert created.status_code == 201, created.text
    assert created.json()["published"] is False and created.json()["live_version"] is None

    # a draft is invisible to students: not listed, no page, no submissions
    assert WALKTHROUGH not in learner.get("/problems").text
    assert all(p["slug"] != WALKTHROUGH for p in learner.get("/api/problems").json()["problems"])
    assert learner.get(f"/problems/{WALKTHROUGH}").status_code == 404
    assert learner.submit(WALKTHROUGH, files["solution.py"]).status_code == 404

    published = call(author, "POST", f"/api/v1/authoring/problems/{WALKTHROUGH}/publish")
    assert published.status_code == 200, published.text
    assert published.json() == {
        "slug": WALKTHROUGH,
        "published": True,
        "live_version": 1,
        "message": "Published: students now see version 1.",
    }

    page = learner.get(f"/problems/{WALKTHROUGH}")
    assert page.status_code == 200 and "Measure Every Linear Layer" in page.text
    accepted = learner.verdict(learner.submit(WALKTHROUGH, files["solution.py"]).json()["id"])
    assert accepted["verdict"] == "accepted", accepted
    for mutant in ("mutants/hooks_not_removed.py", "mutants/no_hooks.py"):
        rejected = learner.verdict(learner.submit(WALKTHROUGH, files[mutant]).json()["id"])
        assert rejected["verdict"] == "wrong_answer", (mutant, rejected)
    starter = learner.verdict(learner.submit(WALKTHROUGH, files["starter.py"]).json()["id"])
    assert starter["verdict"] != "accepted"

    # the live version holds exactly the files the author wrote
    exported = call(author, "GET", f"/api/v1/authoring/problems/{WALKTHROUGH}/export?source=live&format=json")
    assert exported.json()["files"] == files
