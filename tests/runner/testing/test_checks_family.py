"""check_family in the real sandbox: the smallest failing hidden input is shown, its expected value never."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

from runner.engine import Runner
from runner.format.inputs import read_arguments
from runner.format.problem import load_problem_dir
from runner.format.validate import validate_problem
from tests.runner.checks_support import CHECKS, failed_message, folder, judge, mutant, solution

NAME = "stable-softmax"


def test_the_example_problem_validates_and_every_mutant_is_killed(runner: Runner) -> None:
    report = validate_problem(load_problem_dir(folder(NAME)), runner)
    assert report.ok, report.render()
    assert report.mutation_score == "3/3"


def test_the_reference_passes(runner: Runner) -> None:
    assert judge(runner, NAME, solution(NAME)).accepted


def test_overflow_shows_the_smallest_failing_input_and_the_learners_output(runner: Runner) -> None:
    message = failed_message(judge(runner, NAME, mutant(NAME, "no_max_subtraction.py")), "random_rows")
    assert re.fullmatch(
        r"Breaks rule subtract-row-max \(Subtract each row's maximum before `exp`, .*\): "
        r"wrong on 1 of 9 generated inputs; the smallest failing one \(large magnitudes\) is "
        r"x of shape \(\d+, 8\), dtype float32, and your output: tensor\(\[\[.*nan.*\]\]\)\.",
        message,
    ), message


def test_an_empty_input_is_the_counterexample_only_when_nothing_else_fails(runner: Runner) -> None:
    """global_max raises on the empty tensor and overflows on large magnitudes: the counterexample is
    the non-degenerate one, with its failure (non-finite values), not the empty tensor's exception."""
    result = judge(runner, NAME, mutant(NAME, "global_max.py"))
    message = failed_message(result, "random_rows")
    assert message.startswith("Breaks rule subtract-row-max (Subtract each row's maximum before `exp`, "), (
        message
    )
    assert "wrong on 2 of 9 generated inputs; the smallest failing one (large magnitudes) is " in message
    assert "an empty tensor" not in message
    failure = next(c.failure for c in result.cases if c.name == "random_rows")
    assert failure is not None and failure["property"] == "non_finite"


def test_only_empty_inputs_failing_show_the_empty_one(runner: Runner) -> None:
    code = solution(NAME).replace(
        "    if x.numel() == 0:", "    if x.numel() == 0:\n        raise RuntimeError('empty')"
    )
    assert code != solution(NAME)  # so the check below can fail
    message = failed_message(judge(runner, NAME, code), "random_rows")
    assert "the smallest failing one (an empty tensor) is x of shape (0, 8), dtype float32 = []" in message
    assert "your code raised RuntimeError: empty" in message


def test_small_inputs_are_shown_with_their_values_but_never_the_expected_output(runner: Runner) -> None:
    # Wrong only on single-element rows: the smallest failing input is the size-1 random sample.
    code = solution(NAME).replace(
        "    if x.numel() == 0:",
        "    if x.shape[-1] == 1:\n        return torch.zeros_like(x)\n    if x.numel() == 0:",
    )
    result = judge(runner, NAME, code)
    message = failed_message(result, "random_rows")
    assert re.match(
        r"Breaks rule subtract-row-max \(.*\): "
        r".*\(random, size 1\) is x of shape \(\d, 1\), dtype float32 = \[\[",
        message,
    ), message
    assert "your output: tensor([[0.0" in message
    assert "largest error" not in message  # with the output shown, it would give the expected value away
    assert "1.0" not in message.split("your output:")[1]  # the expected ones are never shown


SCALE_TESTS = """
import torch

from runner.testing import case, check_family, samples

ROWS = "Row i of x is multiplied by s[i]."


def rows_and_scales(generator, n):
    return torch.randn(n, 3, generator=generator), torch.randn(n, generator=generator)


@case(public=True)
def example(solution):
    return solution.scale_rows(torch.ones(2, 3), torch.tensor([2.0, 3.0])).tolist()


@case
def random_rows(solution):
    family = samples(rows_and_scales, seed=5, sizes=(1, 2, 4))
    return check_family(solution.scale_rows, family, constraint=ROWS)
"""


def test_samples_of_several_arguments_are_named_by_the_signature(runner: Runner, tmp_path: Path) -> None:
    target = tmp_path / "scale-rows"
    shutil.copytree(CHECKS / NAME, target)
    shutil.rmtree(target / "mutants")
    (target / "problem.toml").write_text(
        (target / "problem.toml").read_text().replace('"softmax_rows"', '"scale_rows"')
    )
    (target / "statement.md").write_text(
        (target / "statement.md")
        .read_text()
        .replace("[[0.0900, 0.2447, 0.6652]]", "[[2.0, 2.0, 2.0], [3.0, 3.0, 3.0]]")
    )
    (target / "starter.py").write_text("def scale_rows(x, s):\n    raise NotImplementedError\n")
    (target / "solution.py").write_text("def scale_rows(x, s):\n    return x * s[:, None]\n")
    (target / "tests.py").write_text(SCALE_TESTS)
    problem = load_problem_dir(target)
    expectations = runner.compute_expectations(problem)
    wrong = "def scale_rows(x, s):\n    return x * s\n"  # broadcasts along the wrong dimension
    result = runner.judge(runner.job_for(problem, expectations, wrong, "submit"))
    message = failed_message(result, "random_rows")
    assert message.startswith(
        "Exception: wrong on 2 of 3 generated inputs; the smallest failing one (random, size 2) is "
        "x of shape (2, 3), dtype float32 = [["
    ), message
    # the input, written as custom input that reproduces it: the same numbers, by argument name
    failure = next(c.failure for c in result.cases if c.name == "random_rows")
    assert failure is not None and failure["input"].startswith('{\n  "x": {"tensor": [[')
    given = read_arguments(failure["input"])
    assert list(given) == ["x", "s"] and given["s"]["dtype"] == "float32" and len(given["s"]["tensor"]) == 2
    assert re.search(
        r"\]\], s of shape \(2,\), dtype float32 = \[[^\]]+\], and your code raised RuntimeError: ", message
    )
