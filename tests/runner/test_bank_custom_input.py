"""Custom input is the judge: on the statement's example input, "Run with my input" and Run agree
on the reference and on every mutant of the bank, judged with the problem's tolerances."""

from __future__ import annotations

from dataclasses import replace

import pytest

from runner import jobs
from runner.engine import Runner
from runner.format import custom as custom_input
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


# Where Run fails on a how-rule that custom input cannot check: a rule only a problem's own cases
# check, on their own data (an input left unmodified, a hook removed). Custom input applies every
# how-rule that holds whatever a case's values (a problem's op_rules_for_every_case), so a mutant
# breaking one fails both routes alike: on the statement's example no pair of the bank is left here.
# Before custom input applied stable-logsumexp's no-builtin-logsumexp rule, six were:
# builtin_through_another_route (the source policy refuses it first in production; this suite's
# runner judges without it), calls_torch_logsumexp, cheat_builtin_out_variant,
# cheat_func_vmap_builtin, cheat_log_softmax_identity and cheat_sibling_logcumsumexp.
# A pair added here names its reason: (problem, mutant) -> why.
CASE_BOUND_RULES: dict[tuple[str, str], str] = {}


def _same_rule_failure(run: jobs.JudgeResult, custom: jobs.JudgeResult) -> list[str]:
    """Where Run's example failed on a rule, custom input names the same rule, sentence, property
    and message (the failure vocabulary's, runner/judging/failures.py)."""
    ran = next((c for c in run.cases if (c.failure or {}).get("kind") == "rule"), None)
    if ran is None:
        return []
    mine = custom.cases[0]
    keys = ("kind", "rule", "sentence", "property", "title")
    differ = [k for k in keys if (ran.failure or {}).get(k) != (mine.failure or {}).get(k)]
    return differ + (["message"] if ran.message != mine.message else [])


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
        if (slug, name) in CASE_BOUND_RULES:
            assert custom.verdict == Verdict.ACCEPTED and run.verdict == Verdict.WRONG_ANSWER, name
            continue
        if (run.verdict == Verdict.ACCEPTED) != (custom.verdict == Verdict.ACCEPTED):
            disagree.append((name, run.verdict, run.message[:200], custom.verdict, custom.message[:200]))
        elif differ := _same_rule_failure(run, custom):
            disagree.append(
                (name, "differs in", differ, run.cases[0].message[:200], custom.cases[0].message[:200])
            )
    assert not disagree, disagree


def test_a_problem_wide_rule_fails_custom_input_as_it_fails_run(runner: Runner) -> None:
    """stable-logsumexp allows, in every case, only the operations its reference and accepted
    alternatives use: a built-in log-sum-exp breaks no-builtin-logsumexp under custom input as under
    Run, with the statement's sentence, and the accepted alternative matches the reference."""
    problem = load_problem_dir(BANK / "stable-logsumexp")
    expectations = runner.compute_expectations(problem)
    code = problem.mutants["calls_torch_logsumexp.py"]
    custom = _custom(runner, problem, expectations, code)
    run = runner.judge(runner.job_for(problem, expectations, code, "run"))
    assert custom.verdict == run.verdict == Verdict.WRONG_ANSWER
    failure = custom.cases[0].failure
    assert failure is not None and failure["kind"] == "rule" and failure["rule"] == "no-builtin-logsumexp"
    assert failure["property"] == "operations" and failure["sentence"].startswith(
        "Do not use `torch.logsumexp`"
    )
    assert custom.cases[0].message == run.cases[0].message
    for name, source in problem.alternatives.items():
        assert _custom(runner, problem, expectations, source).verdict == Verdict.ACCEPTED, name


def test_custom_input_says_which_rules_run_and_submit_check(runner: Runner) -> None:
    """A problem with case-bound how-rules says so on every custom result; one with none says nothing."""
    problem = load_problem_dir(BANK / "stable-logsumexp")
    expectations = runner.compute_expectations(problem)
    assert custom_input.case_bound_rules(expectations) == ("input-not-modified",)
    assert custom_input.problem_wide_rules(expectations) == ("no-builtin-logsumexp",)
    note = "How-rules (input-not-modified) are checked by Run and Submit."
    for code in (
        problem.solution,
        problem.mutants["subtracts_in_place.py"],
        problem.mutants["naive_exp_sum_log.py"],
    ):
        assert _custom(runner, problem, expectations, code).message.endswith(note)
    other = load_problem_dir(BANK / "padding-collate-fn")  # no problem-wide rule: each is case-bound
    other_expectations = runner.compute_expectations(other)
    assert custom_input.problem_wide_rules(other_expectations) == ()
    assert custom_input.case_bound_rules(other_expectations) == ("inputs-not-modified",)
    message = _custom(runner, other, other_expectations, other.solution).message
    assert message.endswith("How-rules (inputs-not-modified) are checked by Run and Submit.")
    assert custom_input.checked_elsewhere(()) == ""  # a problem without rules says nothing


def test_only_problems_with_problem_wide_rules_carry_their_tests() -> None:
    """The generated tests.py holds the problem's own only when it is given (problems that declare
    op_rules_for_every_case): the others pay nothing for it."""
    bare = custom_input.tests_source("f", {"x": 1})
    assert "forget_cases" not in bare
    ruled = custom_input.tests_source("f", {"x": 1}, "from runner.testing import op_rules_for_every_case\n")
    assert (
        ruled.startswith("from runner.testing import op_rules_for_every_case") and "forget_cases()" in ruled
    )


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
