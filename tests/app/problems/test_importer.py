"""Importing the problem bank: idempotent, versioned, and a bad problem never blocks the rest."""

from __future__ import annotations

import shutil
from pathlib import Path

from sqlalchemy import select

from app.kit.db import Database
from app.problems.importer import import_bank, main
from app.problems.models import Problem, ProblemVersion
from runner.jobs import JUDGE_FORMAT

BANK = Path(__file__).resolve().parents[1] / "fixtures" / "bank"


def _copy(tmp_path: Path, slug: str, new_slug: str) -> Path:
    bank = tmp_path / "bank"
    shutil.copytree(BANK / slug, bank / new_slug)
    return bank


def _versions(db: Database, slug: str) -> list[tuple[int, str]]:
    with db.transaction() as session:
        problem = session.scalars(select(Problem).where(Problem.slug == slug)).one()
        rows = session.scalars(
            select(ProblemVersion)
            .where(ProblemVersion.problem_id == problem.id)
            .order_by(ProblemVersion.number)
        ).all()
        assert problem.current_version_id == rows[-1].id
        return [(v.number, v.content_hash) for v in rows]


def test_import_is_idempotent_and_versions_changes(
    db: Database, runner, tmp_path: Path, learner, code_of
) -> None:
    bank = _copy(tmp_path, "add-tensors", "imported-add")
    with db.transaction() as session:
        first = import_bank(session, bank, runner)
    assert first.created == ["imported-add"] and first.ok
    with db.transaction() as session:
        again = import_bank(session, bank, runner)
    assert again.unchanged == ["imported-add"] and not again.created and not again.updated
    assert [n for n, _ in _versions(db, "imported-add")] == [1]

    old = learner.verdict(learner.submit("imported-add", code_of("add-tensors")).json()["id"])
    statement = bank / "imported-add" / "statement.md"
    statement.write_text(statement.read_text() + "\nA clarified sentence.\n")
    (bank / "imported-add" / "problem.toml").write_text(
        (bank / "imported-add" / "problem.toml")
        .read_text()
        .replace('difficulty = "easy"', 'difficulty = "hard"')
    )
    with db.transaction() as session:
        changed = import_bank(session, bank, runner)
    assert changed.updated == ["imported-add"]
    versions = _versions(db, "imported-add")
    assert [n for n, _ in versions] == [1, 2] and versions[0][1] != versions[1][1]

    page = learner.get("/problems/imported-add").text
    assert "A clarified sentence." in page and "diff-hard" in page
    # the submission keeps the version it ran against
    assert (
        learner.get(f"/api/submissions/{old['id']}").json()["problem_version_id"]
        != learner.verdict(learner.submit("imported-add", code_of("add-tensors")).json()["id"])[
            "problem_version_id"
        ]
    )


def test_a_broken_problem_is_reported_and_the_rest_import(db: Database, runner, tmp_path: Path) -> None:
    bank = _copy(tmp_path, "sum-of-squares", "good-one")
    shutil.copytree(BANK / "sum-of-squares", bank / "bad-toml")
    (bank / "bad-toml" / "problem.toml").write_text('title = "x"\ndifficulty = "impossible"\n')
    shutil.copytree(BANK / "sum-of-squares", bank / "bad-reference")
    (bank / "bad-reference" / "solution.py").write_text(
        "def sum_of_squares(x):\n    raise RuntimeError('ref')\n"
    )
    with db.transaction() as session:
        report = import_bank(session, bank, runner)
    assert report.created == ["good-one"]
    assert set(report.errors) == {"bad-toml", "bad-reference"}
    assert "problem.toml" in report.errors["bad-toml"] and "difficulty" in report.errors["bad-toml"]
    assert "reference" in report.errors["bad-reference"]
    with db.transaction() as session:
        slugs = set(session.scalars(select(Problem.slug)))
    assert "good-one" in slugs and "bad-toml" not in slugs and "bad-reference" not in slugs
    assert "failed 2" in report.summary()


def test_command_line_entry_point(db: Database, tmp_path: Path, monkeypatch, capsys) -> None:
    bank = _copy(tmp_path, "sum-of-squares", "cli-import")
    monkeypatch.setenv("TORCHDRILL_DATABASE_URL", db.url)
    from app.kit.settings import get_settings

    get_settings.cache_clear()
    try:
        assert main([str(bank)]) == 0
        assert "+ cli-import" in capsys.readouterr().out
        assert main([str(bank)]) == 0
        assert "unchanged 1" in capsys.readouterr().out
        assert main([str(tmp_path / "missing")]) == 2
    finally:
        get_settings.cache_clear()


def test_expectations_of_an_older_judge_are_recomputed_as_a_new_version(
    db: Database, runner, tmp_path: Path
) -> None:
    bank = _copy(tmp_path, "add-tensors", "older-judge")
    with db.transaction() as session:
        assert import_bank(session, bank, runner).created == ["older-judge"]
        problem = session.scalars(select(Problem).where(Problem.slug == "older-judge")).one()
        version = session.get(ProblemVersion, problem.current_version_id)
        assert version is not None and version.expectations["judge_format"] == JUDGE_FORMAT
        version.expectations = {"cases": version.expectations["cases"]}  # as stored before formats existed
    with db.transaction() as session:
        report = import_bank(session, bank, runner)
    assert report.updated == ["older-judge"]
    versions = _versions(db, "older-judge")
    assert [n for n, _ in versions] == [1, 2] and versions[0][1] == versions[1][1]  # same files
    with db.transaction() as session:
        assert import_bank(session, bank, runner).unchanged == ["older-judge"]
