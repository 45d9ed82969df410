"""The repository's own problem bank imports cleanly and every reference solution is accepted."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from pathlib import Path

import pytest

from app.accounts.service import sign_up
from app.kit.db import Database
from app.problems.importer import import_bank
from runner.format.problem import discover_problems, load_problem_dir
from tests.app.conftest import PASSWORD, Browser

BANK = Path(__file__).resolve().parents[3] / "problems"
SLUGS = [p.name for p in discover_problems(BANK)] if BANK.is_dir() else []


@pytest.mark.slow
@pytest.mark.skipif(not SLUGS, reason="the problems/ bank is empty")
def test_the_problem_bank_imports_and_its_references_pass(
    db: Database, runner, admin, new_browser: Callable[[], Browser]
) -> None:
    with db.transaction() as session:
        report = import_bank(session, BANK, runner)
    assert report.ok, report.summary()
    assert sorted(report.created) == sorted(SLUGS)
    listed = {p["slug"] for p in admin.get("/api/problems").json()["problems"]}
    assert set(SLUGS) <= listed
    # Every problem states its rules, and the API returns them as the statement words them.
    rules = admin.get("/api/v1/problems/clip-gradients").json()["rules"]
    assert [r["id"] for r in rules] == ["no-builtin-clipping", "grad-in-place"]
    assert rules[1]["sentence"].startswith("Both functions change every present gradient in place")
    submitter = admin
    for number, slug in enumerate(SLUGS):
        if number and number % 25 == 0:  # the per-user submission limit (30 a minute) holds for admins too
            submitter = _another_admin(db, new_browser)
        assert submitter.get(f"/problems/{slug}").status_code == 200
        reference = load_problem_dir(BANK / slug).solution
        result = submitter.verdict(submitter.submit(slug, reference).json()["id"])
        assert result["verdict"] == "accepted", (slug, result["message"])


def _another_admin(db: Database, new_browser: Callable[[], Browser]) -> Browser:
    email = f"admin-{uuid.uuid4().hex[:8]}@example.com"
    with db.transaction() as session:
        sign_up(session, email, PASSWORD, role="admin")
    browser = new_browser()
    assert browser.login(email).status_code == 303
    return browser
