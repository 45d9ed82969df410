"""The repository's own problem bank imports cleanly and every reference solution is accepted."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.kit.db import Database
from app.problems.importer import import_bank
from runner.format.problem import discover_problems, load_problem_dir

BANK = Path(__file__).resolve().parents[3] / "problems"
SLUGS = [p.name for p in discover_problems(BANK)] if BANK.is_dir() else []


@pytest.mark.slow
@pytest.mark.skipif(not SLUGS, reason="the problems/ bank is empty")
def test_the_problem_bank_imports_and_its_references_pass(db: Database, runner, admin) -> None:
    with db.transaction() as session:
        report = import_bank(session, BANK, runner)
    assert report.ok, report.summary()
    assert sorted(report.created) == sorted(SLUGS)
    listed = {p["slug"] for p in admin.get("/api/problems").json()["problems"]}
    assert set(SLUGS) <= listed
    for slug in SLUGS:
        assert admin.get(f"/problems/{slug}").status_code == 200
        reference = load_problem_dir(BANK / slug).solution
        result = admin.verdict(admin.submit(slug, reference).json()["id"])
        assert result["verdict"] == "accepted", (slug, result["message"])
