"""check_optimizer in the real sandbox, on the bank's custom-sgd-optimizer problem."""

from __future__ import annotations

import pytest

from runner import jobs
from runner.engine import Runner
from runner.format.problem import ProblemFiles, load_problem_dir
from runner.jobs import Expectations, JudgeResult
from runner.verdict import Verdict
from tests.runner.checks_support import failed_message
from tests.runner.conftest import ALT_SOLUTIONS, BANK

SLUG = "custom-sgd-optimizer"
# Quoted in docs/authoring.md (tests/runner/testing/test_checks_docs.py checks it is).
ALIAS_MESSAGE = (
    "Breaks rule step-touches-only-params-and-state (`step()` changes only the parameters and "
    "`self.state`: it never modifies `p.grad` or the param groups in place, not even temporarily.): "
    "step() modified the gradient of `weight`, the gradient of `bias` in place "
    "(first at step 2); step() may change only the parameters and the optimizer's state."
)


@pytest.fixture(scope="module")
def sgd(runner: Runner) -> tuple[ProblemFiles, Expectations]:
    problem = load_problem_dir(BANK / SLUG)
    return problem, runner.compute_expectations(problem)


def judge(runner: Runner, sgd: tuple[ProblemFiles, Expectations], code: str) -> JudgeResult:
    problem, expectations = sgd
    return runner.judge(runner.job_for(problem, expectations, code, "submit"))


def test_the_reference_and_other_correct_styles_pass(
    runner: Runner, sgd: tuple[ProblemFiles, Expectations]
) -> None:
    for code in [sgd[0].solution, *(p.read_text() for p in sorted((ALT_SOLUTIONS / SLUG).glob("*.py")))]:
        result = judge(runner, sgd, code)
        assert result.verdict == Verdict.ACCEPTED, [c.message for c in result.cases if c.message]


def test_a_momentum_buffer_that_aliases_the_gradient_is_caught(
    runner: Runner, sgd: tuple[ProblemFiles, Expectations]
) -> None:
    result = judge(runner, sgd, sgd[0].mutants["momentum_buffer_aliases_grad.py"])
    assert [c.name for c in result.cases if c.status != jobs.CASE_PASSED] == ["like_torch_sgd_with_momentum"]
    assert failed_message(result, "like_torch_sgd_with_momentum") == ALIAS_MESSAGE


def test_a_different_update_names_the_step_the_parameter_and_torch_optim(
    runner: Runner, sgd: tuple[ProblemFiles, Expectations]
) -> None:
    message = failed_message(
        judge(runner, sgd, sgd[0].mutants["decoupled_weight_decay.py"]), "like_torch_sgd_with_weight_decay"
    )
    assert message.startswith(
        "Values beyond tolerance: after step 2, parameter `weight` differs from "
        "torch.optim.SGD(lr=0.05, momentum=0.5, weight_decay=0.1): max abs error "
    ), message
    assert "The statement says" not in message  # no sentence about something else is quoted


def test_a_parameter_without_gradient_must_stay_untouched(
    runner: Runner, sgd: tuple[ProblemFiles, Expectations]
) -> None:
    decays_everything = sgd[0].solution.replace(
        "                if p.grad is None:\n                    continue\n                d_p = p.grad\n",
        "                d_p = p.grad if p.grad is not None else torch.zeros_like(p)\n",
    )
    assert decays_everything != sgd[0].solution
    message = failed_message(judge(runner, sgd, decays_everything), "like_torch_sgd_with_weight_decay")
    assert message.startswith(
        "Optimizer touched the wrong state: parameter `frozen` has no gradient (its .grad is None) but "
        "step() changed it at index [0]; a parameter without a gradient must be left untouched"
    ), message
