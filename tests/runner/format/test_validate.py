"""Validation runs the problem: broken problems are refused with a message naming the cause."""

from __future__ import annotations

import shutil
from pathlib import Path

from runner.engine import Runner
from runner.format.problem import load_problem_dir
from runner.format.validate import validate_problem
from tests.runner.conftest import FIXTURES


def make(tmp_path: Path, **files: str) -> Path:
    folder = tmp_path / "add-one"
    shutil.copytree(FIXTURES / "add-one", folder)
    for rel, text in files.items():
        path = folder / rel.replace("__", "/").replace("_py", ".py")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return folder


def errors(runner: Runner, folder: Path) -> str:
    report = validate_problem(load_problem_dir(folder), runner)
    assert not report.ok
    return "\n".join(str(e) for e in report.errors)


def test_a_good_problem_passes_with_its_mutation_score(runner: Runner, tmp_path: Path) -> None:
    folder = make(
        tmp_path, mutants__plus_two_py="import torch\ndef add_one(x):\n    return torch.as_tensor(x) + 2\n"
    )
    report = validate_problem(load_problem_dir(folder), runner)
    assert report.ok, report.render()
    assert report.mutation_score == "1/1"
    assert report.mutants[0].caught_by == ["example", "hidden"]


def test_wrong_example_in_statement(runner: Runner, tmp_path: Path) -> None:
    statement = (FIXTURES / "add-one" / "statement.md").read_text().replace("[2.0, 3.0]", "[2.0, 4.0]")
    assert "statement.md" in errors(runner, make(tmp_path, **{"statement.md": statement}))


def test_an_example_output_that_is_not_right_under_its_heading_is_refused(
    runner: Runner, tmp_path: Path
) -> None:
    statement = (
        (FIXTURES / "add-one" / "statement.md")
        .read_text()
        .replace("### Output\n", "### Output\n\nThe tensor below.\n", 1)
    )
    assert "not followed directly by a ```python block" in errors(
        runner, make(tmp_path, **{"statement.md": statement})
    )


def test_passing_starter(runner: Runner, tmp_path: Path) -> None:
    solution = (FIXTURES / "add-one" / "solution.py").read_text()
    assert "starter.py: the starter code is accepted" in errors(
        runner, make(tmp_path, **{"starter.py": solution})
    )


def test_surviving_mutant(runner: Runner, tmp_path: Path) -> None:
    survivor = "import torch\ndef add_one(x):\n    return torch.as_tensor(x) + 1.0\n"
    assert "mutants/same.py: this known-wrong solution is accepted" in errors(
        runner, make(tmp_path, mutants__same_py=survivor)
    )


def test_syntax_error_in_tests(runner: Runner, tmp_path: Path) -> None:
    message = errors(
        runner, make(tmp_path, **{"tests.py": "from runner.testing import case\n@case(\ndef x(:\n"})
    )
    assert "tests.py:3: syntax error" in message


def test_reference_failing_its_own_tests(runner: Runner, tmp_path: Path) -> None:
    message = errors(
        runner, make(tmp_path, **{"solution.py": "def add_one(x):\n    raise ValueError('boom')\n"})
    )
    assert "solution.py" in message and "boom" in message


def test_the_kill_matrix_says_which_case_rejects_which_mutant(runner: Runner, tmp_path: Path) -> None:
    folder = make(
        tmp_path,
        mutants__plus_two_py="import torch\ndef add_one(x):\n    return torch.as_tensor(x) + 2\n",
        # right on the example [1.0, 2.0] only: the hidden case alone rejects it
        mutants__example_only_py="import torch\ndef add_one(x):\n    return torch.tensor([2.0, 3.0])\n",
    )
    report = validate_problem(load_problem_dir(folder), runner)
    assert report.ok, report.render()
    assert report.kill_matrix() == [("example_only.py", [False, True]), ("plus_two.py", [True, True])]
    assert report.idle_cases() == []
    assert report.render(matrix=True).splitlines()[2:] == [
        "  kill matrix (x: the case rejects the mutant; cases: 1 example, 2 hidden)",
        "                     1 2",
        "    example_only.py  . x",
        "    plus_two.py      x x",
    ]
    assert report.render().splitlines()[1:] == [
        "  cases: 2 (1 public); starter: runtime_error; mutation score: 2/2"
    ]  # without --matrix: one summary line per problem
    assert report.to_dict()["kill_matrix"]["mutants"][0] == {
        "name": "example_only.py",
        "kills": [False, True],
    }


def test_hidden_cases_that_reject_no_mutant_are_named(runner: Runner, tmp_path: Path) -> None:
    tests = (FIXTURES / "add-one" / "tests.py").read_text() + (
        "\n\n@case\ndef example_again(solution):\n    return solution.add_one(torch.tensor([1.0, 2.0]))\n"
    )
    example_only = "import torch\ndef add_one(x):\n    return torch.tensor([2.0, 3.0])\n"
    report = validate_problem(
        load_problem_dir(make(tmp_path, **{"tests.py": tests}, mutants__example_only_py=example_only)), runner
    )
    assert report.idle_cases() == ["example_again"]  # the public example is not listed: it is the example
    assert "hidden cases that reject no mutant: example_again" in report.render()


def test_a_reference_that_fails_its_own_gradient_check_is_refused(runner: Runner, tmp_path: Path) -> None:
    folder = tmp_path / "swish-backward"
    shutil.copytree(FIXTURES / "checks" / "swish-backward", folder)
    shutil.copy(folder / "mutants" / "sigmoid_only.py", folder / "solution.py")
    (folder / "mutants" / "sigmoid_only.py").unlink()
    report = validate_problem(load_problem_dir(folder), runner)
    assert [str(e) for e in report.errors if e.file == "solution.py"] == [
        f"solution.py: case {name}: the reference fails its own gradients check "
        "(torch.autograd.gradcheck, or finite differences, disagree with its backward) — "
        "the reference defines what the check requires: make it pass (see the case's check)"
        for name in ("gradient_matches_finite_differences", "second_derivative")
    ]
