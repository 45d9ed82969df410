"""The seed problems are judged correctly: references, other correct styles, and mutants."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from runner import jobs
from runner.engine import Runner
from runner.format.problem import load_problem_dir
from runner.verdict import Verdict
from tests.runner.conftest import ALT_SOLUTIONS, BANK

SEED_PROBLEMS = ["backward-hook-gradients", "forward-hook-activations", "modify-activations-hook"]
REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def expectations(runner: Runner) -> dict[str, jobs.Expectations]:
    return {slug: runner.compute_expectations(load_problem_dir(BANK / slug)) for slug in SEED_PROBLEMS}


@pytest.mark.parametrize("slug", SEED_PROBLEMS)
def test_reference_and_other_styles_are_accepted(runner: Runner, expectations, slug: str) -> None:  # type: ignore[no-untyped-def]
    problem = load_problem_dir(BANK / slug)
    alternatives = sorted((ALT_SOLUTIONS / slug).glob("*.py"))
    assert len(alternatives) >= 2
    for path in [BANK / slug / "solution.py", *alternatives]:
        result = runner.judge(runner.job_for(problem, expectations[slug], path.read_text(), "submit"))
        assert result.verdict == Verdict.ACCEPTED, (
            path.name,
            result.message,
            [c.message for c in result.cases],
        )


@pytest.mark.parametrize("slug", SEED_PROBLEMS)
def test_every_mutant_and_the_starter_are_rejected(runner: Runner, expectations, slug: str) -> None:  # type: ignore[no-untyped-def]
    problem = load_problem_dir(BANK / slug)
    for name, source in {**problem.mutants, "starter": problem.starter}.items():
        result = runner.judge(runner.job_for(problem, expectations[slug], source, "submit"))
        assert result.verdict != Verdict.ACCEPTED, name


def test_run_mode_executes_only_public_cases(runner: Runner, expectations) -> None:  # type: ignore[no-untyped-def]
    slug = "forward-hook-activations"
    problem = load_problem_dir(BANK / slug)
    result = runner.judge(runner.job_for(problem, expectations[slug], problem.solution, "run"))
    assert result.verdict == Verdict.ACCEPTED
    assert [c.public for c in result.cases] == [True] * len(result.cases) and result.total >= 1


def test_hidden_cases_reveal_neither_expected_values_nor_stdout(runner: Runner, expectations) -> None:  # type: ignore[no-untyped-def]
    slug = "backward-hook-gradients"
    problem = load_problem_dir(BANK / slug)
    mutant = next(iter(problem.mutants.values()))
    result = runner.judge(runner.job_for(problem, expectations[slug], "print('hello')\n" + mutant, "submit"))
    hidden = [c for c in result.cases if not c.public]
    assert hidden and all(c.expected is None and c.actual is None and c.stdout is None for c in hidden)
    public = [c for c in result.cases if c.public]
    assert all(c.expected is not None for c in public)


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "runner", *args],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def test_cli_exit_code_is_zero_only_on_accepted(tmp_path: Path) -> None:
    slug = "modify-activations-hook"
    ok = _cli("judge", f"problems/{slug}", f"tests/fixtures/alt_solutions/{slug}/hook_class.py")
    assert ok.returncode == 0, ok.stdout + ok.stderr
    assert "verdict: accepted" in ok.stdout
    mutant = sorted((BANK / slug / "mutants").glob("*.py"))[0]
    bad = _cli("judge", f"problems/{slug}", str(mutant), "--json")
    assert bad.returncode == 1
    assert '"verdict": "wrong_answer"' in bad.stdout


def test_cli_reports_a_missing_problem_clearly() -> None:
    result = _cli("judge", "problems/does-not-exist", "solution.py")
    assert result.returncode == 2
    assert "does-not-exist" in result.stderr
