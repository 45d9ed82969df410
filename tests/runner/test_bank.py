"""The shipped problem bank: complete, and valid when run in the sandbox."""

from __future__ import annotations

import re

import pytest

from runner.engine import Runner
from runner.problem import discover_problems, load_problem_dir
from runner.validate import OUTPUT_BLOCK_RE, validate_problem
from tests.runner.conftest import BANK

STATEMENT_SECTIONS = [
    "Problem Statement",
    "Background",
    "Your Task",
    "Output Format",
    "Example",
    "Constraints",
]
EXAMPLE_PARTS = ["Input", "Output", "Reasoning"]
LEARN_SECTIONS = [
    "Background Knowledge",
    "Algorithm/Approach",
    "Step-by-Step Strategy",
    "Common Pitfalls",
    "Time & Space Complexity",
]
FOLDERS = discover_problems(BANK)


def headings(markdown: str, level: int) -> list[str]:
    return re.findall(rf"(?m)^{'#' * level}\s+(.+?)\s*$", markdown)


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
def test_every_problem_has_all_sections(folder) -> None:  # type: ignore[no-untyped-def]
    problem = load_problem_dir(folder)
    assert headings(problem.statement, 2) == STATEMENT_SECTIONS
    assert all(part in headings(problem.statement, 3) for part in EXAMPLE_PARTS)
    assert headings(problem.learn, 2) == LEARN_SECTIONS
    assert len(OUTPUT_BLOCK_RE.findall(problem.statement)) == 1  # the example output validation compares


@pytest.mark.parametrize("folder", FOLDERS, ids=lambda f: f.name)
def test_every_problem_validates_in_the_sandbox(runner: Runner, folder) -> None:  # type: ignore[no-untyped-def]
    report = validate_problem(load_problem_dir(folder), runner)
    assert report.ok, report.render()
    # Every example value printed in the statement equals the reference's value on this torch.
    assert not [e for e in report.errors if e.file == "statement.md"]
    assert all(m.killed for m in report.mutants) and len(report.mutants) >= 3
