"""``torchdrill report`` and ``torchdrill reports`` against a live server: thin over /api/v1."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from app.cli.main import app as cli
from tests.app.api_v1.conftest import ApiAccount

WRONG_ADD = "def add(a, b):\n    return a - b\n"


def test_report_a_case_from_the_command_line(
    live_server: str, student: ApiAccount, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TORCHDRILL_CONFIG", str(tmp_path / "config.json"))
    runner = CliRunner()
    logged_in = runner.invoke(cli, ["login", "--server", live_server, "--token", student.token])
    assert logged_in.exit_code == 0, logged_in.output
    view = student.submit("add-tensors", WRONG_ADD, wait="true", timeout=60).json()
    hidden = next(t["name"] for t in view["tests"] if not t["public"] and t["status"] == "failed")

    filed = runner.invoke(cli, ["report", str(view["id"]), "--case", hidden, "--note", "Looks wrong."])
    assert filed.exit_code == 0, filed.output
    assert f"submission #{view['id']}, test case '{hidden}': open" in filed.output
    twice = runner.invoke(cli, ["report", str(view["id"]), "--case", hidden, "--note", "Again."])
    assert twice.exit_code == 2 and "already reported" in twice.output
    listed = runner.invoke(cli, ["reports"])
    assert listed.exit_code == 0 and f"test case '{hidden}': open" in listed.output
    other = runner.invoke(cli, ["report", "2147483647", "--case", hidden, "--note", "x"])
    assert other.exit_code == 2 and "There is no submission" in other.output
