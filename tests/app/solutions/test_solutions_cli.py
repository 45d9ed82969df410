"""``torchdrill solutions SLUG`` against a live server: a solver reads them (sorted, filtered by
tag), a non-solver hears why not and the command fails."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from typer.testing import CliRunner

from app.cli.main import app as cli
from tests.app.api_v1.conftest import ApiAccount
from tests.app.solutions.conftest import publish, solve


def test_solutions_from_the_command_line(
    live_server: str, make_account: Callable[..., ApiAccount], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first, second, reader = make_account(), make_account(), make_account()
    one = publish(first, "add-tensors", solve(first, "add-tensors")["id"], title="First way", tags=["plain"])
    two = publish(second, "add-tensors", solve(second, "add-tensors")["id"], title="Second way",
                  write_up="Uses **broadcasting**.", tags=["broadcasting"])  # fmt: skip
    assert one.status_code == two.status_code == 201
    assert first.put(f"/api/v1/solutions/{two.json()['id']}/vote").status_code == 200
    monkeypatch.setenv("TORCHDRILL_CONFIG", str(tmp_path / "config.json"))
    runner = CliRunner()
    assert runner.invoke(cli, ["login", "--server", live_server, "--token", reader.token]).exit_code == 0

    locked = runner.invoke(cli, ["solutions", "add-tensors"])
    assert locked.exit_code != 0 and "Solve it first" in locked.output and "Give up" in locked.output

    solve(reader, "add-tensors")
    by_votes = runner.invoke(cli, ["solutions", "add-tensors"])
    assert by_votes.exit_code == 0, by_votes.output
    assert by_votes.output.index("Second way") < by_votes.output.index("First way")
    assert "1 vote," in by_votes.output and "Uses **broadcasting**." in by_votes.output
    assert "return a + b" in by_votes.output
    newest = runner.invoke(cli, ["solutions", "add-tensors", "--sort", "newest"])
    assert newest.output.index("Second way") < newest.output.index("First way")
    tagged = runner.invoke(cli, ["solutions", "add-tensors", "--tag", "plain"])
    assert "First way" in tagged.output and "Second way" not in tagged.output
    none = runner.invoke(cli, ["solutions", "add-tensors", "--tag", "einsum"])
    assert none.exit_code == 0 and "no published solutions with tag 'einsum'" in none.output
    missing = runner.invoke(cli, ["solutions", "no-such-problem"])
    assert missing.exit_code != 0 and "no-such-problem" in missing.output
