"""The shipped problem bank: complete, and valid when run in the sandbox."""

from __future__ import annotations

import pytest

from runner.engine import Runner
from runner.format.problem import discover_problems, load_problem_dir
from runner.format.quality import bank_findings, bank_titles
from runner.format.statement_examples import OUTPUT_BLOCK_RE
from runner.format.tracks import unknown_category
from runner.format.validate import validate_problem
from tests.runner.conftest import BANK

FOLDERS = discover_problems(BANK)


def test_the_bank_keeps_the_pytorch_advanced_track() -> None:
    problems = [load_problem_dir(f) for f in FOLDERS]
    advanced = {p.title for p in problems if p.category == "PyTorch Advanced"}
    assert {
        "Register Backward Hook to Capture Gradients",
        "Register Forward Hook to Capture Activations",
        "Modify Activations with Forward Hook",
    } <= advanced
    assert len(advanced) == 8
    assert load_problem_dir(BANK / "modify-activations-hook").premium


@pytest.mark.parametrize("folder", FOLDERS, ids=lambda f: f.name)
def test_every_problem_meets_the_bank_bar(folder) -> None:  # type: ignore[no-untyped-def]
    """Every section, a hint, three mutants, a known track (runner.format.quality), one example output."""
    problem = load_problem_dir(folder)
    titles = bank_titles(folder)
    assert titles is not None, "the bank has a tracks.toml"
    assert unknown_category(problem.category, titles) is None
    assert [str(f) for f in bank_findings(problem)] == []
    assert len(OUTPUT_BLOCK_RE.findall(problem.statement)) == 1  # the example output validation compares


@pytest.mark.parametrize("folder", FOLDERS, ids=lambda f: f.name)
def test_every_problem_validates_in_the_sandbox(checked_runner: Runner, folder) -> None:  # type: ignore[no-untyped-def]
    # With the source policy, as `make validate` and every production route judge.
    report = validate_problem(load_problem_dir(folder), checked_runner, bank_titles(folder))
    assert report.ok, report.render()
    # Every example value printed in the statement equals the reference's value on this torch.
    assert not [e for e in report.errors if e.file == "statement.md"]
    assert all(m.killed for m in report.mutants) and len(report.mutants) >= 3
