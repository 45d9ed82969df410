"""check_gradients in the real sandbox: a right backward passes, a wrong one is named with its error."""

from __future__ import annotations

import re

import pytest

from runner.engine import Runner
from runner.format.problem import load_problem_dir
from runner.format.validate import validate_problem
from tests.runner.checks_support import failed_message, folder, judge, mutant, solution

NAME = "swish-backward"


@pytest.mark.parametrize(("name", "score"), [(NAME, "5/5"), ("linear-function", "3/3")])
def test_the_example_problems_validate_and_every_mutant_is_killed(
    runner: Runner, name: str, score: str
) -> None:
    report = validate_problem(load_problem_dir(folder(name)), runner)
    assert report.ok, report.render()
    assert report.mutation_score == score


def test_a_right_backward_passes(runner: Runner) -> None:
    assert judge(runner, NAME, solution(NAME)).accepted


def test_a_wrong_backward_is_named_with_its_finite_difference_error(runner: Runner) -> None:
    result = judge(runner, NAME, mutant(NAME, "sigmoid_only.py"))
    assert result.verdict == "wrong_answer"
    message = failed_message(result, "gradient_matches_finite_differences")
    assert re.fullmatch(
        r"Breaks rule exact-backward \(backward returns the exact derivative .*\): "
        r"d\(output\)/d\(x\) differs from finite differences: max abs error [0-9.e-]+ "
        r"at index \[\d+, \d+\]\.",
        message,
    ), message


def test_a_backward_that_returns_nothing_says_no_gradient_reaches_the_input(runner: Runner) -> None:
    message = failed_message(
        judge(runner, NAME, mutant(NAME, "backward_returns_none.py")), "gradient_matches_finite_differences"
    )
    assert message.startswith("Breaks rule exact-backward (backward returns the exact derivative "), message
    assert "): d(output)/d(x) is missing: no gradient reaches x" in message, message


def test_a_wrong_forward_is_reported_before_gradients(runner: Runner) -> None:
    wrong_forward = solution(NAME).replace("return x * torch.sigmoid(x)", "return x * torch.tanh(x)")
    message = failed_message(judge(runner, NAME, wrong_forward), "gradient_matches_finite_differences")
    assert message.startswith("Values beyond tolerance: the output itself is wrong ("), message
    assert message.endswith("; gradients are checked once the forward pass is right."), message


def test_a_forged_check_value_cannot_pass(runner: Runner) -> None:
    """The learner's process can return anything; a pass still needs the reference's gradients."""
    forged = (
        mutant(NAME, "sigmoid_only.py")
        + "\nimport sys\nimport runner.testing.checks.gradients as g\n"
        + "_real = g.check_gradients\n"
        + "def _forge(*a, **k):\n"
        + "    v = _real(*a, **k)\n"
        + "    v.compared['holds'] = True\n"
        + "    return v\n"
        + "sys.modules['torchdrill_tests'].check_gradients = _forge\n"
    )
    result = judge(runner, NAME, forged)
    assert not result.accepted


def test_a_backward_that_is_not_differentiable_fails_the_second_order_check_only(runner: Runner) -> None:
    result = judge(runner, NAME, mutant(NAME, "detached_backward.py"))
    assert [c.name for c in result.cases if c.status != "passed"] == ["second_derivative"]
    assert failed_message(result, "second_derivative") == (
        "Breaks rule differentiable-backward (backward uses differentiable torch operations, so second "
        "derivatives work too.): d²(output)/d(x)² is missing: your backward is not differentiable itself "
        "(it detaches its inputs or runs under torch.no_grad())."
    )


def test_a_modules_parameters_are_checked_by_name(runner: Runner) -> None:
    result = judge(runner, "linear-function", mutant("linear-function", "bias_mean.py"))
    message = failed_message(result, "layer_gradients")
    assert re.fullmatch(
        r"Breaks rule exact-backward \(`backward` returns .*\): "
        r"d\(output\)/d\(bias\) differs from finite differences: max abs error [0-9.e-]+ at index \[\d\]\.",
        message,
    ), message
    assert judge(runner, "linear-function", solution("linear-function")).accepted
