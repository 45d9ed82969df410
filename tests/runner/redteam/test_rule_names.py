"""A forbid/require rule's names must reach something the judge intercepts, under any of the
names a statement may use: an alias is resolved (``torch.cdist`` is ``torch.functional.cdist``),
and a name that could never fire (``torch._weight_norm``, not overridable; a misspelling; an aten
operator that does not exist) fails the reference's run, so ``problems validate`` refuses it.
In the real sandbox, on a copy of the ops fixture whose tests name them."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from runner.engine import Runner
from runner.format.problem import load_problem_dir
from runner.format.validate import validate_problem
from tests.runner.conftest import FIXTURES

NO_CDIST = "Do not call torch.cdist."
TESTS = """
import torch

from runner.testing import case, forbid_ops


@case(public=True)
def example(solution):
    return solution.layer_norm(torch.tensor([[1.0, 3.0]]), eps=1e-5)


@case
def no_cdist(solution):
    with forbid_ops({NAME: "Do not call torch.cdist."}):
        return solution.pairwise_sq(torch.arange(6.0).reshape(3, 2))
"""


def _problem(tmp_path: Path, name: str) -> Path:
    folder = tmp_path / "ops"
    shutil.copytree(FIXTURES / "ops", folder)
    shutil.rmtree(folder / "mutants")
    (folder / "tests.py").write_text(TESTS.replace("NAME", repr(name)))
    return folder


@pytest.mark.parametrize(
    "name", ["torch._weight_norm", "torch.cdistt", "aten.cdistt", "torch._C._nn.l1_loss"]
)
def test_a_name_that_could_never_fire_fails_validation(runner: Runner, tmp_path: Path, name: str) -> None:
    report = validate_problem(load_problem_dir(_problem(tmp_path, name)), runner)
    assert not report.ok
    assert "names nothing the judge can intercept" in report.render() or "no such aten operator" in (
        report.render()
    ), report.render()


@pytest.mark.parametrize("name", ["torch.cdist", "torch.functional.cdist"])
def test_an_alias_holds_for_every_name(runner: Runner, tmp_path: Path, name: str) -> None:
    problem = load_problem_dir(_problem(tmp_path, name))
    expectations = runner.compute_expectations(problem)
    cheat = problem.solution.replace(
        "    sq = (points * points).sum(dim=1)\n    return sq[:, None] + sq[None, :] - 2 * points @ points.T",
        "    return torch.cdist(points, points) ** 2",
    )
    assert cheat != problem.solution
    result = runner.judge(runner.job_for(problem, expectations, cheat, "submit"))
    case = next(c for c in result.cases if c.name == "no_cdist")
    assert case.status == "failed", case.message
    assert NO_CDIST in case.message
    reference = runner.judge(runner.job_for(problem, expectations, problem.solution, "submit"))
    assert reference.accepted, reference.message
