"""Authoring in a scaled-out deployment: the web process has no sandbox, so validation and
expected values are computed by a runner worker through the broker."""

from __future__ import annotations

import pytest

from app.kit.broker import make_redis
from app.scaleout.celery_dispatch import make_celery
from app.scaleout.remote_runner import RemoteRunner
from runner.engine import ExpectationError
from runner.format.problem import build_problem, load_problem_dir
from runner.format.validate import validate_problem
from tests.scale.stack import BANK, Stack

pytestmark = [pytest.mark.celery, pytest.mark.slow]


def test_validation_and_expectations_run_on_a_runner_worker(stack: Stack) -> None:
    stack.start_runner("runner-authoring", slots=1)
    settings = stack.settings()
    remote = RemoteRunner(
        make_redis(settings), settings.wire, make_celery(settings), settings.broker_url or ""
    )
    problem = load_problem_dir(BANK / "add-tensors")

    report = validate_problem(problem, remote)
    # Everything that runs code ran on the worker (this fixture's statement lacks the bank's sections).
    assert [e.file for e in report.errors] == ["statement.md"], report.render()
    assert report.expectations is not None and len(report.expectations.cases) == 3
    assert report.starter_verdict == "runtime_error"
    assert report.mutants and all(m.killed for m in report.mutants)

    broken = build_problem(problem.slug, {**problem.files(), "solution.py": "def oops(:\n"})
    with pytest.raises(ExpectationError, match=r"solution\.py"):
        remote.compute_expectations(broken)
