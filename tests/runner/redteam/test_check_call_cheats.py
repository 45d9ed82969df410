"""check_call against a learner who writes to an input and puts it back, or returns a caller's
buffer inside a container, in the real sandbox: each attempt fails with the rule's message."""

from __future__ import annotations

import textwrap

import pytest

from runner.engine import Runner
from runner.format.problem import load_problem_dir
from runner.format.validate import validate_problem
from tests.runner.checks_support import failed_message
from tests.runner.conftest import FIXTURES

CONTAINER = FIXTURES / "redteam" / "container-output"
RULE = "Breaks rule new-tensors (Leave `x` unchanged: every tensor returned is a new one.)"
RESTORE_CHEATS = {
    "add then subtract": "x.add_(1); x.sub_(1)",
    "under no_grad": "import torch\n    with torch.no_grad():\n        x.mul_(2); x.div_(2)",
    "copy_ of a saved copy": "saved = x.clone(); x.zero_(); x.copy_(saved)",
    "through a detached alias": "d = x.detach(); d.neg_(); d.neg_()",
    "through a view": "v = x.view(-1); v[0] = 99.0; v[0] = 0.0",
    "a no-op write": "x.clamp_(min=float('-inf'))",
}


def _judge(runner: Runner, code: str):  # type: ignore[no-untyped-def]
    problem = load_problem_dir(CONTAINER)
    expectations = runner.compute_expectations(problem)
    return runner.judge(runner.job_for(problem, expectations, code, "submit"))


def test_the_fixture_validates_and_its_mutant_dies(runner: Runner) -> None:
    report = validate_problem(load_problem_dir(CONTAINER), runner)
    assert report.ok, report.render()
    assert report.mutation_score == "2/2"


def test_the_reference_passes(runner: Runner) -> None:
    assert _judge(runner, (CONTAINER / "solution.py").read_text()).accepted


@pytest.mark.parametrize("cheat", sorted(RESTORE_CHEATS))
def test_writing_an_input_and_restoring_it_fails(runner: Runner, cheat: str) -> None:
    code = "def split_scale(x):\n    " + RESTORE_CHEATS[cheat] + "\n"
    code += '    return {"scaled": 2 * x, "parts": [x[0] + 1, x[1] + 1]}\n'
    message = failed_message(_judge(runner, code), "new_tensors_inside_containers")
    assert "your function wrote to input `x` in place" in message, message
    assert "put its values back" in message and RULE in message


@pytest.mark.parametrize(
    "output",
    [
        '{"scaled": 2 * x, "parts": [x[0], x[1] + 1]}',
        '{"scaled": 2 * x, "parts": (x[0] + 1, x.view(-1)[3:])}',
        '{"scaled": x.expand(2, 3), "parts": [x[0] + 1, x[1] + 1]}',
    ],
)
def test_an_output_that_aliases_the_input_inside_a_container_fails(runner: Runner, output: str) -> None:
    code = f"def split_scale(x):\n    return {output}\n"
    message = failed_message(_judge(runner, code), "new_tensors_inside_containers")
    assert "the output shares storage with `x` (a view); it should be a new tensor" in message, message


# Containers of the learner's own classes (and named tuples): the check reads them as the host's
# encoder does, through the built-in's own methods, whatever the class overrides.
SUBCLASS_OUTPUTS = {
    "a dict subclass": (
        "class Parts(dict):\n    pass\n",
        "Parts(scaled=2 * x, parts=[x[0], x[1] + 1])",
    ),
    "a dict subclass that hides its items": (
        "class Parts(dict):\n    def items(self):\n        return []\n"
        "    def __iter__(self):\n        return iter(())\n",
        "Parts(scaled=2 * x, parts=[x[0], x[1] + 1])",
    ),
    "a list subclass that hides its items": (
        "class Hidden(list):\n    def __iter__(self):\n        return iter(())\n"
        "    def __len__(self):\n        return 0\n",
        '{"scaled": 2 * x, "parts": Hidden([x[0], x[1] + 1])}',
    ),
    "a named tuple": (
        "import collections\nParts = collections.namedtuple('Parts', 'first second')\n",
        '{"scaled": 2 * x, "parts": Parts(x[0] + 1, x.view(-1)[3:])}',
    ),
    "a tuple subclass that hides its items": (
        "class Hidden(tuple):\n    def __iter__(self):\n        return iter(())\n"
        "    def __getitem__(self, i):\n        raise IndexError(i)\n",
        '{"scaled": 2 * x, "parts": Hidden((x[0] + 1, x[1]))}',
    ),
}


@pytest.mark.parametrize("kind", sorted(SUBCLASS_OUTPUTS))
def test_an_alias_inside_a_container_of_the_learners_class_fails(runner: Runner, kind: str) -> None:
    prelude, output = SUBCLASS_OUTPUTS[kind]
    code = f"{prelude}\n\ndef split_scale(x):\n    return {output}\n"
    message = failed_message(_judge(runner, code), "new_tensors_inside_containers")
    assert "the output shares storage with `x` (a view); it should be a new tensor" in message, message


def test_a_sign_flip_of_zero_is_a_change(runner: Runner) -> None:
    # -0.0 == 0.0 as numbers: compared bit for bit, the flip is a write that was not undone.
    code = textwrap.dedent("""
        def split_scale(x):
            x.data[0, 0] = -0.0
            return {"scaled": 2 * x, "parts": [x[0] + 1, x[1] + 1]}
    """)
    message = failed_message(_judge(runner, code), "new_tensors_inside_containers")
    assert "your function modified input `x` in place: first change at index [0, 0]" in message, message
