"""``torchdrill problems validate|import|export``: exit codes, reports, exact round trips."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from app.cli.main import app
from app.kit.db import Database
from app.kit.settings import get_settings
from tests.app.authoring.helpers import AUTHORING_FIXTURES, WALKTHROUGH, call

cli = CliRunner()


@pytest.fixture
def on_test_database(db: Database, monkeypatch: pytest.MonkeyPatch) -> Iterator[Database]:
    monkeypatch.setenv("TORCHDRILL_DATABASE_URL", db.url)
    get_settings.cache_clear()
    yield db
    get_settings.cache_clear()


def _copy(tmp_path: Path, slug: str) -> Path:
    target = tmp_path / "bank" / slug
    shutil.copytree(AUTHORING_FIXTURES / WALKTHROUGH, target)
    return target


def _tree(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_validate_reports_each_problem_and_fails_on_any(tmp_path: Path) -> None:
    good = _copy(tmp_path, "good-one")
    bad = _copy(tmp_path, "bad-one")
    (bad / "tests.py").write_text(
        (bad / "tests.py").read_text().replace("def example(solution):", "def example(")
    )
    unreadable = tmp_path / "bank" / "only-a-toml"
    unreadable.mkdir()
    (unreadable / "problem.toml").write_text('title = "x"\n')

    ok = cli.invoke(app, ["problems", "validate", str(good)])
    assert ok.exit_code == 0, ok.output
    assert "PASS good-one" in ok.output and "1 of 1 problem valid" in ok.output

    result = cli.invoke(app, ["problems", "validate", str(tmp_path / "bank")])
    assert result.exit_code == 1, result.output
    assert (
        "FAIL bad-one" in result.output and "tests.py:" in result.output and "syntax error" in result.output
    )
    assert "PASS good-one" in result.output
    assert "FAIL only-a-toml\n  error: statement.md: file is missing" in result.output
    assert "1 of 3 problems valid" in result.output

    missing = cli.invoke(app, ["problems", "validate", str(tmp_path / "nowhere")])
    assert missing.exit_code == 2 and "is not a directory" in missing.output


def test_validate_matrix_prints_which_case_rejects_which_mutant(tmp_path: Path) -> None:
    folder = _copy(tmp_path, "good-one")
    summary = cli.invoke(app, ["problems", "validate", str(folder)])
    assert summary.exit_code == 0 and "kill matrix" not in summary.output
    result = cli.invoke(app, ["problems", "validate", "--matrix", str(folder)])
    assert result.exit_code == 0, result.output
    assert (
        "  kill matrix (x: the case rejects the mutant; cases: 1 example, 2 another_input, 3 other_weights,\n"
        "    4 hooks_registered_and_removed)\n"
        "                           1 2 3 4\n"
        "    cheat_global_hook.py   . . . .  killed by the source policy\n"
        "    hooks_every_module.py  x x x x\n"
        "    hooks_not_removed.py   . . . x\n"
    ) in result.output


def test_import_then_export_round_trips_the_folder_byte_for_byte(
    tmp_path: Path, on_test_database: Database
) -> None:
    slug = "cli-round-trip"
    folder = _copy(tmp_path, slug)
    imported = cli.invoke(app, ["problems", "import", "--unpublished", str(folder)])
    assert imported.exit_code == 0, imported.output
    assert "created 1" in imported.output

    out = tmp_path / "out"
    exported = cli.invoke(app, ["problems", "export", slug, str(out)])
    assert exported.exit_code == 0, exported.output
    assert _tree(out / slug) == _tree(folder)

    again = cli.invoke(app, ["problems", "import", str(out / slug)])
    assert again.exit_code == 0 and "unchanged 1" in again.output, again.output

    refused = cli.invoke(app, ["problems", "export", slug, str(out)])
    assert refused.exit_code == 2 and "is not empty; pass --force" in refused.output
    (out / slug / "mutants" / "stale.py").write_text("def linear_output_norms(x):\n    return {}\n")
    forced = cli.invoke(app, ["problems", "export", slug, str(out), "--force"])
    assert forced.exit_code == 0, forced.output
    assert _tree(out / slug) == _tree(folder)

    no_draft = cli.invoke(app, ["problems", "export", slug, str(tmp_path / "d"), "--source", "draft"])
    assert no_draft.exit_code == 1 and "has no draft" in no_draft.output
    unknown = cli.invoke(app, ["problems", "export", "no-such-problem", str(tmp_path / "d")])
    assert unknown.exit_code == 1 and "There is no problem called 'no-such-problem'" in unknown.output


def test_import_with_validate_refuses_a_broken_problem(tmp_path: Path, on_test_database: Database) -> None:
    folder = _copy(tmp_path, "cli-broken")
    (folder / "starter.py").write_text((folder / "solution.py").read_text())
    result = cli.invoke(app, ["problems", "import", "--validate", str(folder)])
    assert result.exit_code == 1, result.output
    assert (
        "cli-broken: does not pass validation" in result.output and "gives the answer away" in result.output
    )


def test_a_bank_import_never_overwrites_a_problem_authored_on_the_site(
    tmp_path: Path, on_test_database: Database, author: Any, walkthrough_files: dict[str, str]
) -> None:
    """A folder named like a problem that has owners (or is course-only) is refused, not imported:
    holding a folder of that name gives no right to someone else's problem."""
    slug = "cli-owned"
    created = call(
        author, "POST", "/api/v1/authoring/problems", json={"slug": slug, "files": walkthrough_files}
    )
    assert created.status_code == 201, created.text
    folder = _copy(tmp_path, slug)
    (folder / "learn.md").write_text("Taken over by a folder.\n")
    for command in (["problems", "import", str(folder)], ["problems", "import", str(folder.parent)]):
        result = cli.invoke(app, command)
        assert result.exit_code == 1, result.output
        assert f"'{slug}' was authored on the site" in result.output
    state = call(author, "GET", f"/api/v1/authoring/problems/{slug}").json()
    assert state["live_version"] is None and state["files"] == walkthrough_files
