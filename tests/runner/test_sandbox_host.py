"""The runner refuses to run learner code where its sandbox cannot be built."""

from __future__ import annotations

import pytest

from runner import sandbox
from runner.engine import Runner


def test_refuses_to_start_without_bubblewrap(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sandbox.shutil, "which", lambda name: None)
    with pytest.raises(sandbox.SandboxUnavailable, match="apt-get install bubblewrap"):
        Runner()


def test_reports_the_real_runtime(runner: Runner) -> None:
    import platform

    import torch

    info = runner.runtime_info()
    assert info == {"python": platform.python_version(), "torch": torch.__version__.split("+")[0]}


def test_zygote_death_is_survived(runner: Runner) -> None:
    from runner.problem import load_problem_dir
    from tests.runner.conftest import FIXTURES

    problem = load_problem_dir(FIXTURES / "add-one")
    expectations = runner.compute_expectations(problem)
    assert runner._sandbox is not None
    runner._sandbox.proc.kill()  # the zygote's sandbox goes away between jobs
    runner._sandbox.proc.wait()
    result = runner.judge(runner.job_for(problem, expectations, problem.solution, "submit"))
    assert result.accepted, result.message
