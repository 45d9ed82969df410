"""Fixtures for the runner's tests: one real sandbox for the whole session (never a mock)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from runner.engine import Runner
from runner.format.problem import ProblemFiles, load_problem_dir
from runner.jobs import Expectations, JudgeResult, Limits

FIXTURES = Path(__file__).parent / "fixtures"
BANK = Path(__file__).resolve().parents[2] / "problems"
ALT_SOLUTIONS = Path(__file__).resolve().parents[1] / "fixtures" / "alt_solutions"


@pytest.fixture(scope="session")
def runner() -> Iterator[Runner]:
    # Without the source policy: most of the suite attacks the layers below it (the sandbox, the
    # guard) with code the policy would refuse. `checked_runner` judges with it, as production does.
    r = Runner(max_concurrent=4, source_policy=False)
    yield r
    r.close()


@pytest.fixture
def checked_runner(runner: Runner) -> Iterator[Runner]:
    """The session's runner with the source policy in force, as every production route has it."""
    runner.source_policy = True
    try:
        yield runner
    finally:
        runner.source_policy = False


@pytest.fixture(scope="session")
def probe(runner: Runner) -> tuple[ProblemFiles, Expectations]:
    problem = load_problem_dir(FIXTURES / "probe")
    return problem, runner.compute_expectations(problem)


JudgeFn = Callable[..., JudgeResult]


@pytest.fixture
def judge_probe(runner: Runner, probe: tuple[ProblemFiles, Expectations]) -> JudgeFn:
    """Judge learner code against the probe problem (its reference returns 0)."""
    problem, expectations = probe

    def judge(code: str, mode: str = "run", **limits: float) -> JudgeResult:
        job = runner.job_for(problem, expectations, code, mode)
        if limits:
            job = type(job)(**{**job.__dict__, "limits": Limits(**{**job.limits.to_dict(), **limits})})
        return runner.judge(job)

    return judge
