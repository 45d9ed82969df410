"""The new forms of op rules resolve to something the judge intercepts, or validation refuses them.

* An aten name that PyTorch decomposes before the dispatch level (CompositeImplicitAutograd:
  ``aten.cdist``, ``aten.cross_entropy_loss``, ``aten.scaled_dot_product_attention``) never reaches
  the judge's TorchDispatchMode, so a forbid rule naming it could never fire: refused.
* ``allow_ops``' extra names must be real, interceptable aten operators.
* An accepted alternative (``alternatives/``) must be accepted, and what it dispatches is allowed.
* A problem-wide rule (``op_rules_for_every_case``) holds in a case that does not name it.

In the real sandbox, on a copy of the ops fixture whose tests.py is replaced."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from runner.engine import Runner
from runner.format.problem import load_problem_dir
from runner.format.validate import validate_problem
from tests.runner.conftest import FIXTURES

HEAD = """
import torch

from runner.testing import allow_ops, case, forbid_ops, op_rules_for_every_case

"""
CASES = """
@case(public=True)
def example(solution):
    return solution.pairwise_sq(torch.arange(6.0).reshape(3, 2))


@case
def other(solution):
    return solution.pairwise_sq(torch.arange(8.0).reshape(4, 2))
"""
ONLY_REFERENCE = "Use only elementwise arithmetic and matrix products."
BUILTIN = "    return torch.cdist(points, points) ** 2"
REFERENCE_BODY = (
    "    sq = (points * points).sum(dim=1)\n    return sq[:, None] + sq[None, :] - 2 * points @ points.T"
)


def _problem(tmp_path: Path, tests: str, alternatives: dict[str, str] | None = None) -> Path:
    folder = tmp_path / "ops"
    shutil.copytree(FIXTURES / "ops", folder)
    shutil.rmtree(folder / "mutants")
    (folder / "tests.py").write_text(HEAD + tests)
    if alternatives:
        (folder / "alternatives").mkdir()
        for name, source in alternatives.items():
            (folder / "alternatives" / name).write_text(source)
    return folder


@pytest.mark.parametrize(
    "name", ["aten.cdist", "aten.cross_entropy_loss", "aten.scaled_dot_product_attention"]
)
def test_an_aten_name_decomposed_before_dispatch_fails_validation(
    runner: Runner, tmp_path: Path, name: str
) -> None:
    tests = CASES.replace(
        "def other(solution):\n    return",
        f"def other(solution):\n    with forbid_ops({{{name!r}: 'no'}}):\n        return",
    )
    report = validate_problem(load_problem_dir(_problem(tmp_path, tests)), runner)
    assert not report.ok
    assert "decomposes it" in report.render(), report.render()


@pytest.mark.parametrize("name", ["aten.cdistt", "aten.cdist", "torch.cdist", "aten.mm.default"])
def test_an_allow_rule_extra_that_is_not_an_interceptable_operator_fails_validation(
    runner: Runner, tmp_path: Path, name: str
) -> None:
    tests = CASES.replace(
        "def other(solution):\n    return",
        f"def other(solution):\n    with allow_ops({ONLY_REFERENCE!r}, extra=[{name!r}]):\n        return",
    )
    report = validate_problem(load_problem_dir(_problem(tmp_path, tests)), runner)
    assert not report.ok, report.render()
    assert any(
        why in report.render() for why in ("no such aten operator", "decomposes it", "name an extra operator")
    ), report.render()


def test_a_problem_wide_allow_rule_holds_in_every_case(runner: Runner, tmp_path: Path) -> None:
    tests = f"op_rules_for_every_case('only-reference', allow={ONLY_REFERENCE!r})\n" + CASES
    problem = load_problem_dir(_problem(tmp_path, tests))
    expectations = runner.compute_expectations(problem)
    cheat = problem.solution.replace(REFERENCE_BODY, BUILTIN)
    assert cheat != problem.solution
    result = runner.judge(runner.job_for(problem, expectations, cheat, "submit"))
    assert [c.status for c in result.cases] == ["failed", "failed"], [
        (c.name, c.message) for c in result.cases
    ]
    assert all(ONLY_REFERENCE in c.message and "aten._cdist_forward" in c.message for c in result.cases)
    reference = runner.judge(runner.job_for(problem, expectations, problem.solution, "submit"))
    assert reference.accepted, reference.message


def test_without_a_problem_wide_rule_an_unnamed_case_does_not_watch(runner: Runner, tmp_path: Path) -> None:
    # The converse, so the test above can fail: a case-level rule holds only in its case.
    tests = CASES.replace(
        "def other(solution):\n    return",
        f"def other(solution):\n    with allow_ops({ONLY_REFERENCE!r}):\n        return",
    )
    problem = load_problem_dir(_problem(tmp_path, tests))
    expectations = runner.compute_expectations(problem)
    cheat = problem.solution.replace(REFERENCE_BODY, BUILTIN)
    statuses = {
        c.name: c.status for c in runner.judge(runner.job_for(problem, expectations, cheat, "submit")).cases
    }
    assert statuses == {"example": "passed", "other": "failed"}, statuses


ALTERNATIVE = REFERENCE_BODY.replace("(points * points).sum(dim=1)", "points.pow(2).sum(dim=1)")


def test_an_accepted_alternative_widens_what_the_rule_allows(runner: Runner, tmp_path: Path) -> None:
    tests = f"op_rules_for_every_case('only-reference', allow={ONLY_REFERENCE!r})\n" + CASES
    base = load_problem_dir(_problem(tmp_path / "a", tests))
    code = base.solution.replace(REFERENCE_BODY, ALTERNATIVE)
    assert code != base.solution
    without = runner.judge(runner.job_for(base, runner.compute_expectations(base), code, "submit"))
    assert not without.accepted and "aten.pow" in without.cases[0].message, without.cases[0].message

    widened = load_problem_dir(_problem(tmp_path / "b", tests, {"pow.py": code}))
    report = validate_problem(widened, runner)
    assert not any(f.file.startswith("alternatives/") for f in report.errors), report.render()
    judged = runner.judge(runner.job_for(widened, runner.compute_expectations(widened), code, "submit"))
    assert judged.accepted, [(c.name, c.message) for c in judged.cases]


def test_an_alternative_that_is_not_accepted_fails_validation(runner: Runner, tmp_path: Path) -> None:
    tests = f"op_rules_for_every_case('only-reference', allow={ONLY_REFERENCE!r})\n" + CASES
    folder = _problem(
        tmp_path,
        tests,
        {
            "wrong.py": (FIXTURES / "ops" / "solution.py")
            .read_text()
            .replace(REFERENCE_BODY, "    return (points * points).sum(dim=1)[:, None] + 1.0")
        },
    )
    report = validate_problem(load_problem_dir(folder), runner)
    assert any(f.file == "alternatives/wrong.py" for f in report.errors), report.render()
