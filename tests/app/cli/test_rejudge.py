"""``torchdrill submissions rejudge``: an internal_error (or any finished verdict) judged again."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from app.cli.main import app as cli
from app.kit.db import Database
from app.kit.metrics import LocalStats
from app.submissions import repository
from app.submissions.judging import record_result
from runner.jobs import JudgeResult
from tests.app.api_v1.conftest import ApiAccount, create_account


@pytest.fixture
def run(db: Database, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    monkeypatch.setenv("TORCHDRILL_DATABASE_URL", db.url)
    monkeypatch.delenv("TORCHDRILL_BROKER_URL", raising=False)
    monkeypatch.chdir(tmp_path)
    runner = CliRunner()
    return lambda *args: runner.invoke(cli, [str(a) for a in args])


@pytest.fixture
def student(app: FastAPI, db: Database) -> ApiAccount:
    email, token = create_account(db)
    return ApiAccount(email, token, TestClient(app))


def test_rejudge_turns_an_internal_error_into_the_real_verdict(run, db, student, code_of) -> None:
    done = student.submit("add-tensors", code_of("add-tensors"), wait="true").json()
    assert done["verdict"] == "accepted"
    with db.transaction() as session:  # the platform failed on it (as if the sandbox had broken)
        repository.reopen(session, done["id"])
        assert record_result(
            session, done["id"], JudgeResult.internal_error("boom (not your fault)", "sandbox")
        )
    stored = student.get(f"/api/v1/submissions/{done['id']}").json()
    assert stored["verdict"] == "internal_error" and stored["runtime"]["internal_error"] == "sandbox"

    result = run("submissions", "rejudge", done["id"])
    assert result.exit_code == 0, result.output
    assert f"#{done['id']}: internal_error -> accepted" in result.output
    again = student.get(f"/api/v1/submissions/{done['id']}").json()
    assert again["verdict"] == "accepted" and (again["passed"], again["total"]) == (3, 3)
    assert "internal_error" not in again["runtime"]


def test_rejudge_refuses_what_is_not_finished_or_missing(run) -> None:
    result = run("submissions", "rejudge", 987654321)
    assert result.exit_code == 1 and "not found or not finished" in result.output


def test_internal_errors_are_counted_by_cause() -> None:
    stats = LocalStats()
    stats.verdict("internal_error", 0.1, 0.05, "sandbox")
    stats.verdict("internal_error", 0.1, 0.05, "stuck")
    stats.verdict("internal_error", 0.1, 0.05, "sandbox")
    stats.verdict("wrong_answer", 0.1, 0.05)
    assert stats.snapshot()["internal_errors"] == {"sandbox": 2, "stuck": 1}
