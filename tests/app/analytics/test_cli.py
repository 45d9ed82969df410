"""``torchdrill analytics check|rebuild``: the operator's comparison and repair."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import update
from typer.testing import CliRunner

from app.analytics.models import AnalyticsProgress
from app.cli.main import app as cli
from app.kit.db import Database
from tests.app.analytics.classroom import ACCEPTED, make_class, wrong


@pytest.fixture
def run(db: Database, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    monkeypatch.setenv("TORCHDRILL_DATABASE_URL", db.url)
    monkeypatch.chdir(tmp_path)
    runner = CliRunner()
    return lambda *args: runner.invoke(cli, [str(a) for a in args])


def test_check_then_rebuild(run: Any, db: Database) -> None:
    room = make_class(db, students=2)
    a, b = room.students
    room.solve(a, "add-tensors", 3, wrong(("broadcast", "values")))
    room.solve(b, "add-tensors", 4, ACCEPTED)
    checked = run("analytics", "check")
    assert checked.exit_code == 0, checked.output
    assert "differences: 0" in checked.output
    with db.transaction() as session:
        session.execute(update(AnalyticsProgress).values(solved_at=None))
    assert run("analytics", "check").exit_code == 1
    rebuilt = run("analytics", "rebuild")
    assert rebuilt.exit_code == 0 and "differences before: 2" in rebuilt.output, rebuilt.output
    assert run("analytics", "check").exit_code == 0
