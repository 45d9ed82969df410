"""Importing the problem bank: idempotent, versioned, and a bad problem never blocks the rest."""

from __future__ import annotations

import shutil
from pathlib import Path

from sqlalchemy import select

from app.kit.db import Database
from app.problems import repository
from app.problems.importer import import_bank, main
from app.problems.models import Problem, ProblemVersion, Track
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


def test_the_bank_tracks_are_imported_and_an_unknown_category_is_refused(
    db: Database, runner, tmp_path: Path
) -> None:
    bank = _copy(tmp_path, "sum-of-squares", "tracked-one")
    (bank / "tracks.toml").write_text(
        '[[track]]\nslug = "test-reductions"\ntitle = "Test Reductions"\norder = 11\n'
        'description = "Reworded by this import."\n'
        '[[track]]\nslug = "imported-track"\ntitle = "Imported Track"\norder = 12\ndescription = "New."\n'
    )
    toml = bank / "tracked-one" / "problem.toml"
    toml.write_text(toml.read_text().replace('category = "Test Reductions"', 'category = "Imported Track"'))
    toml.write_text(toml.read_text().replace("order = 1\n", "order = 4\n"))
    shutil.copytree(bank / "tracked-one", bank / "unnumbered-one")
    unnumbered = bank / "unnumbered-one" / "problem.toml"
    unnumbered.write_text(unnumbered.read_text().replace("order = 4\n", ""))
    shutil.copytree(BANK / "sum-of-squares", bank / "lost-one")
    lost = bank / "lost-one" / "problem.toml"
    lost.write_text(lost.read_text().replace('category = "Test Reductions"', 'category = "Reductions"'))
    with db.transaction() as session:
        report = import_bank(session, bank, runner)
    assert report.created == ["tracked-one", "unnumbered-one"]
    assert report.errors["lost-one"].startswith(
        "problem.toml: category 'Reductions' is not a track; use one of: "
    )
    assert "'Imported Track'" in report.errors["lost-one"]
    with db.transaction() as session:
        tracks = {t.slug: t for t in session.scalars(select(Track))}
        problem = session.scalars(select(Problem).where(Problem.slug == "tracked-one")).one()
        assert problem.track_id == tracks["imported-track"].id and problem.position == 4
        in_order = repository.track_problems(session, [tracks["imported-track"].id])
        assert [p.slug for p in in_order] == ["tracked-one", "unnumbered-one"]  # no order: after the numbered
        assert tracks["test-reductions"].description == "Reworded by this import."
        assert "test-basics" in tracks  # an import adds and updates tracks, never removes one
        tracks["test-reductions"].description = "Reducing a tensor to a number."  # as the seeded bank has it
        session.delete(tracks["imported-track"])


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


def test_an_imported_problem_keeps_its_accepted_alternatives(
    db: Database, runner, tmp_path: Path, learner
) -> None:
    """alternatives/ is stored with the problem and widens its allow_ops rule after the import, as
    validation saw it: a solution written like the alternative is accepted through the app, and one
    that uses an operator neither the reference nor the alternative uses is not."""
    real = Path(__file__).resolve().parents[3] / "problems" / "stable-logsumexp"
    bank = tmp_path / "bank"
    shutil.copytree(real, bank / "imported-lse")
    toml = bank / "imported-lse" / "problem.toml"
    toml.write_text(
        toml.read_text().replace('category = "Numerics & Introspection"', 'category = "Test Basics"')
    )
    with db.transaction() as session:
        report = import_bank(session, bank, runner)
    assert report.created == ["imported-lse"], report.errors
    alternative = (real / "alternatives" / "max_values_and_masked_fill.py").read_text()
    accepted = learner.verdict(learner.submit("imported-lse", alternative).json()["id"])
    assert accepted["verdict"] == "accepted", accepted
    sibling = alternative.replace(
        "torch.max(x, dim=dim, keepdim=True).values", "torch.cummax(x, dim)[0].narrow(dim, -1, 1)"
    )
    assert sibling != alternative
    refused = learner.verdict(learner.submit("imported-lse", sibling).json()["id"])
    assert refused["verdict"] == "wrong_answer" and "aten.cummax" in str(refused), refused
