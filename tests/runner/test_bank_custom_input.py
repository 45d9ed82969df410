"""Custom input is the judge: on the statement's example input, "Run with my input" and Run agree
on the reference and on every mutant of the bank, judged with the problem's tolerances."""

from __future__ import annotations

from dataclasses import replace

import pytest

from runner import jobs
from runner.engine import Runner
from runner.format.custom import CustomInput
from runner.format.problem import load_problem_dir
from runner.verdict import Verdict
from tests.runner.conftest import BANK

WITH_EXAMPLE = sorted(
    p.name
    for p in BANK.iterdir()
    if (p / "problem.toml").is_file() and "[example_input]" in (p / "problem.toml").read_text()
)


# Where the problem's example is laxer than custom input, which compares the tensors themselves:
# padding-collate-fn's example returns .tolist() (as its statement shows it), so a float padding
# buffer passes Run's example while custom input sees float32 where the reference has int64 (its
# hidden cases catch it too).
STRICTER_THAN_THE_EXAMPLE = {("padding-collate-fn", "float_padding_buffer.py")}


def _custom(runner: Runner, problem, expectations: jobs.Expectations, code: str) -> jobs.JudgeResult:  # type: ignore[no-untyped-def]
    assert problem.example_input is not None
    job = runner.job_for(problem, expectations, code, "run")
    given = CustomInput.judged_like(problem.example_input, problem.solution, expectations)
    return runner.judge(replace(job, custom=given))


def test_the_bank_offers_custom_input() -> None:
    assert len(WITH_EXAMPLE) >= 20  # so the agreement below is measured on most of the bank


def _only_how_rules_failed(run: jobs.JudgeResult) -> bool:
    """Run failed only on rules about how the code works (operations, hooks: a problem-wide
    ``op_rules_for_every_case`` watches the example too), never on its values."""
    failed = [c for c in run.cases if c.status != "passed"]
    return bool(failed) and all(
        (c.failure or {}).get("kind") == "rule"
        and (c.failure or {}).get("property") in ("operations", "hooks")
        for c in failed
    )


@pytest.mark.parametrize("slug", WITH_EXAMPLE)
def test_custom_input_and_run_agree_on_every_mutant(runner: Runner, slug: str) -> None:
    problem = load_problem_dir(BANK / slug)
    expectations = runner.compute_expectations(problem)
    disagree = []
    for name, code in {"solution.py": problem.solution, **problem.mutants}.items():
        run = runner.judge(runner.job_for(problem, expectations, code, "run"))
        if run.verdict == Verdict.COMPILE_ERROR:
            continue  # refused before anything runs, on both routes alike
        custom = _custom(runner, problem, expectations, code)
        if (slug, name) in STRICTER_THAN_THE_EXAMPLE:
            assert custom.verdict == Verdict.WRONG_ANSWER and custom.cases[0].failure["kind"] == "dtype"  # type: ignore[index]
            continue
        if custom.verdict == Verdict.ACCEPTED and _only_how_rules_failed(run):
            continue  # custom input judges values; how the code works is Run's and Submit's (docs/api.md)
        if (run.verdict == Verdict.ACCEPTED) != (custom.verdict == Verdict.ACCEPTED):
            disagree.append((name, run.verdict, run.message[:200], custom.verdict, custom.message[:200]))
    assert not disagree, disagree


OFF_BY = """
_reference = stable_logsumexp


def stable_logsumexp(x, dim):
    return _reference(x, dim) + {off}
"""


def test_custom_input_uses_the_problems_tolerances(runner: Runner) -> None:
    """stable-logsumexp allows rtol = atol = 1e-5: its custom input refuses a result 3e-4 off
    (the old fixed 1e-4 accepted 3e-5 off whatever the problem said) and accepts one 1e-7 off."""
    problem = load_problem_dir(BANK / "stable-logsumexp")
    expectations = runner.compute_expectations(problem)
    example = next(c for c in expectations.cases if c.public)
    assert (example.rtol, example.atol) == (1e-5, 1e-5)  # so the check below can fail
    for off, verdict in (("1e-7", Verdict.ACCEPTED), ("3e-5", Verdict.WRONG_ANSWER)):
        code = problem.solution + OFF_BY.format(off=off)
        custom = _custom(runner, problem, expectations, code)
        run = runner.judge(runner.job_for(problem, expectations, code, "run"))
        assert custom.verdict == run.verdict == verdict, (off, custom.message, run.message)
    failed = custom.cases[0].failure
    assert failed is not None and failed["kind"] == "values" and failed["rtol"] == 1e-5
