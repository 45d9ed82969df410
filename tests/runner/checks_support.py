"""The example problems of docs/authoring.md's "Checking how" section, judged in the real sandbox."""

from __future__ import annotations

import functools
from pathlib import Path

from runner.engine import Runner
from runner.format.problem import ProblemFiles, load_problem_dir
from runner.jobs import Expectations, JudgeResult
from tests.runner.conftest import FIXTURES

CHECKS = FIXTURES / "checks"


@functools.cache
def _expectations(runner: Runner, name: str) -> tuple[ProblemFiles, Expectations]:
    problem = load_problem_dir(CHECKS / name)
    return problem, runner.compute_expectations(problem)


def judge(runner: Runner, name: str, code: str) -> JudgeResult:
    """Submit ``code`` to the example problem ``name`` (expected values from its reference)."""
    problem, expectations = _expectations(runner, name)
    return runner.judge(runner.job_for(problem, expectations, code, "submit"))


def mutant(name: str, file: str) -> str:
    return (CHECKS / name / "mutants" / file).read_text()


def solution(name: str) -> str:
    return (CHECKS / name / "solution.py").read_text()


def failed_message(result: JudgeResult, case: str) -> str:
    found = next(c for c in result.cases if c.name == case)
    assert found.status == "failed", (found.status, found.message)
    return found.message


def folder(name: str) -> Path:
    return CHECKS / name
