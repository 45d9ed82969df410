"""The source policy on the routes a learner has: `torchdrill submit` to a real server (real HTTP,
the real sandbox), the API's run and custom modes, and `torchdrill judge` on a local folder. Each
refuses the same code with `compile_error` and the line, before anything runs."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from app.kit.db import Database
from tests.app.api_v1.conftest import create_account

REPO = Path(__file__).resolve().parents[3]
REFUSED = (
    "import torch\n\n\ndef scale_rows(x, s):\n    return x * s[:, None] + torch._C._get_tracing_state()\n"
)


@pytest.fixture
def run(db: Database, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):  # type: ignore[no-untyped-def]
    from typer.testing import CliRunner

    from app.cli.main import app as cli

    monkeypatch.setenv("TORCHDRILL_DATABASE_URL", db.url)
    monkeypatch.setenv("TORCHDRILL_CONFIG", str(tmp_path / "cfg" / "config.json"))
    monkeypatch.chdir(tmp_path)
    runner = CliRunner()
    return lambda *args: runner.invoke(cli, [str(a) for a in args])


def test_submit_over_http_is_refused_with_the_line(
    run: Any, live_server: str, app: FastAPI, db: Database, tmp_path: Path
) -> None:
    _email, token = create_account(db, premium_days=30)
    assert run("login", "--server", live_server, "--token", token).exit_code == 0
    (tmp_path / "solution.py").write_text(REFUSED, encoding="utf-8")
    submitted = run("submit", "scale-rows", "solution.py")
    assert submitted.exit_code == 1, submitted.output
    assert "COMPILE ERROR" in submitted.output and "Line 5" in submitted.output
    found = re.search(r"#(\d+) submit:", submitted.output)
    assert found, submitted.output
    body = (
        TestClient(app)
        .get(f"/api/v1/submissions/{found.group(1)}", headers={"Authorization": f"Bearer {token}"})
        .json()
    )
    assert body["verdict"] == "compile_error" and body["message"].startswith("Line 5: ")
    assert "private part of PyTorch" in body["message"]
    assert all(t["status"] == "not_run" and t["line"] == 5 for t in body["tests"])


@pytest.mark.parametrize("mode", ["run", "custom"])
def test_api_run_and_custom_input_are_refused(app: FastAPI, db: Database, mode: str) -> None:
    _email, token = create_account(db, premium_days=30)
    body: dict[str, Any] = {"problem": "scale-rows", "code": REFUSED, "mode": mode}
    if mode == "custom":
        body["input"] = {"x": {"tensor": [[1.0]]}, "s": {"tensor": [2.0]}}
    response = TestClient(app).post(
        "/api/v1/submissions",
        json=body,
        params={"wait": "true", "timeout": 60},
        headers={"Authorization": f"Bearer {token}"},
    )
    assert response.status_code == 200, response.text
    view = response.json()
    assert view["verdict"] == "compile_error" and view["message"].startswith("Line 5: "), view


def test_torchdrill_judge_refuses_locally(tmp_path: Path) -> None:
    solution = tmp_path / "solution.py"
    solution.write_text("import gc\n\n\ndef add(a, b):\n    return a + b\n", encoding="utf-8")
    result = subprocess.run(
        [sys.executable, "-m", "app.cli.main", "judge", "problems/forward-hook-activations", str(solution)],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert result.returncode == 1, result.stdout + result.stderr
    assert "compile_error" in result.stdout.lower().replace(" ", "_") and "Line 1" in result.stdout
