"""Behaving well only when watched stops paying: every case is observed the same way, with or
without a check in it (the sealed modes are on the stacks for the whole case, inert where the case
checks nothing), so what a solution can see of the judge through public PyTorch is the same in
every case. In the real sandbox, on the ops fixture (one case without a check, three with one).

The probe solutions below answer *wrongly* when they believe themselves unwatched (plain route:
``torch.overrides.has_torch_function``; sneakier: its unary and variadic forms, which read the
same mode stack). Before every case was observed, the
unchecked ``example`` case failed for each of them; now no case looks unwatched, so each answers
correctly everywhere — and the mirror image, wrong only when watched, fails every case."""

from __future__ import annotations

import pytest

from runner.engine import Runner
from runner.format.problem import ProblemFiles, load_problem_dir
from runner.jobs import Expectations
from tests.runner.conftest import FIXTURES

WATCHED = {
    "has_torch_function": "torch.overrides.has_torch_function((x,))",
    "unary": "torch.overrides.has_torch_function_unary(x)",
    "variadic": "torch.overrides.has_torch_function_variadic(x, x)",
}

PROBE = """
import torch


def _watched(x):
    return bool({probe})


def layer_norm(x, eps=1e-5):
    mean = x.mean(dim=-1, keepdim=True)
    var = x.var(dim=-1, unbiased=False, keepdim=True)
    out = (x - mean) / torch.sqrt(var + eps)
    return out if {good_when} else out + 1.0


def segment_sum(values, index, n):
    out = torch.zeros(n, dtype=values.dtype)
    out = out.scatter_add_(0, index, values)
    return out if {good_when} else out + 1.0


def pairwise_sq(p):
    d = (p[:, None, :] - p[None, :, :]).pow(2).sum(-1)
    return d if {good_when} else d + 1.0
"""


@pytest.fixture(scope="module")
def ops_problem(runner: Runner) -> tuple[ProblemFiles, Expectations]:
    problem = load_problem_dir(FIXTURES / "ops")
    return problem, runner.compute_expectations(problem)


def _judge(runner: Runner, problem: tuple[ProblemFiles, Expectations], code: str) -> dict[str, str]:
    files, expectations = problem
    result = runner.judge(runner.job_for(files, expectations, code, "submit"))
    return {c.name: c.status for c in result.cases}


@pytest.mark.parametrize("route", sorted(WATCHED))
def test_a_solution_cannot_find_an_unwatched_case(
    runner: Runner, ops_problem: tuple[ProblemFiles, Expectations], route: str
) -> None:
    # Correct only when it believes itself watched: every case must look watched.
    code = PROBE.format(probe=WATCHED[route], good_when="_watched(torch.zeros(1))")
    statuses = _judge(runner, ops_problem, code)
    assert statuses and set(statuses.values()) == {"passed"}, statuses


@pytest.mark.parametrize("route", sorted(WATCHED))
def test_behaving_badly_when_watched_fails_every_case(
    runner: Runner, ops_problem: tuple[ProblemFiles, Expectations], route: str
) -> None:
    # The mirror image, so the check above can fail: wrong only when watched is wrong everywhere.
    code = PROBE.format(probe=WATCHED[route], good_when="not _watched(torch.zeros(1))")
    statuses = _judge(runner, ops_problem, code)
    assert statuses and "passed" not in set(statuses.values()), statuses
