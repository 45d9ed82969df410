"""check_family in the real sandbox: the smallest failing hidden input is shown, its expected value never."""

from __future__ import annotations

import re

from runner.engine import Runner
from runner.problem import load_problem_dir
from runner.validate import validate_problem
from tests.runner.checks_support import failed_message, folder, judge, mutant, solution

NAME = "stable-softmax"


def test_the_example_problem_validates_and_every_mutant_is_killed(runner: Runner) -> None:
    report = validate_problem(load_problem_dir(folder(NAME)), runner)
    assert report.ok, report.render()
    assert report.mutation_score == "2/2"


def test_the_reference_passes(runner: Runner) -> None:
    assert judge(runner, NAME, solution(NAME)).accepted


def test_overflow_shows_the_smallest_failing_input_and_the_learners_output(runner: Runner) -> None:
    message = failed_message(judge(runner, NAME, mutant(NAME, "no_max_subtraction.py")), "random_rows")
    assert re.fullmatch(
        r"Random inputs: wrong on 1 of 9 generated inputs; the smallest failing one \(large magnitudes\) is "
        r"x of shape \(\d+, 8\), dtype float32, and your output: tensor\(\[.*nan.*\], shape=\(\d+, 8\), "
        r"dtype=float32\)\. The statement says: “Subtract each row's maximum before `exp`, .*”",
        message,
    ), message


def test_an_exception_on_the_smallest_input_is_shown_with_that_input(runner: Runner) -> None:
    message = failed_message(judge(runner, NAME, mutant(NAME, "global_max.py")), "random_rows")
    assert message.startswith(
        "Random inputs: wrong on 2 of 9 generated inputs; the smallest failing one (an empty tensor) is "
        "x of shape (0, 8), dtype float32 = [], and your code raised RuntimeError: "
    ), message


def test_small_inputs_are_shown_with_their_values_but_never_the_expected_output(runner: Runner) -> None:
    # Wrong only on single-element rows: the smallest failing input is the size-1 random sample.
    code = solution(NAME).replace(
        "    if x.numel() == 0:",
        "    if x.shape[-1] == 1:\n        return torch.zeros_like(x)\n    if x.numel() == 0:",
    )
    result = judge(runner, NAME, code)
    message = failed_message(result, "random_rows")
    assert re.match(
        r"Random inputs: .*\(random, size 1\) is x of shape \(\d, 1\), dtype float32 = \[\[", message
    ), message
    assert "your output: tensor([0.0" in message
    assert "1.0" not in message.split("your output:")[1]  # the expected ones are never shown
