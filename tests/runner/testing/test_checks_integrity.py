"""check_call in the real sandbox: inputs left alone, views vs copies, dtype and contiguity."""

from __future__ import annotations

import collections
from collections.abc import Iterator
from typing import Any

import pytest
import torch

from runner.engine import Runner
from runner.format.problem import load_problem_dir
from runner.format.validate import validate_problem
from runner.testing import check_call
from tests.runner.checks_support import failed_message, folder, judge, mutant, solution

# Quoted in docs/authoring.md (tests/runner/testing/test_checks_docs.py checks they are).
IN_PLACE_MESSAGE = (
    "Breaks rule input-not-modified (Do not modify `x`: return a new tensor.): your function modified "
    "input `x` in place: first change at index [0, 0] "
    "(0.0 became -3.5); the output shares storage with `x` (a view); it should be a new tensor."
)
DTYPE_MESSAGE = "Wrong dtype: the output has dtype float32; it should be float16."


@pytest.mark.parametrize(("name", "score"), [("center-rows", "3/3"), ("column-view", "2/2")])
def test_the_example_problems_validate_and_every_mutant_is_killed(
    runner: Runner, name: str, score: str
) -> None:
    report = validate_problem(load_problem_dir(folder(name)), runner)
    assert report.ok, report.render()
    assert report.mutation_score == score


@pytest.mark.parametrize("name", ["center-rows", "column-view"])
def test_the_references_pass(runner: Runner, name: str) -> None:
    assert judge(runner, name, solution(name)).accepted


def test_modifying_the_input_names_the_argument_and_the_first_changed_index(runner: Runner) -> None:
    message = failed_message(
        judge(runner, "center-rows", mutant("center-rows", "subtracts_in_place.py")), "input_left_alone"
    )
    assert message == IN_PLACE_MESSAGE


def test_a_changed_dtype_is_named(runner: Runner) -> None:
    message = failed_message(
        judge(runner, "center-rows", mutant("center-rows", "computes_in_float32.py")), "dtype_kept"
    )
    assert message == DTYPE_MESSAGE


def test_a_copy_where_a_view_is_required(runner: Runner) -> None:
    message = failed_message(
        judge(runner, "column-view", mutant("column-view", "contiguous_copy.py")), "is_a_view"
    )
    assert message.startswith(
        "Breaks rule returns-a-view (Return a view of `x` (it shares `x`'s storage), not a copy.): "
        "the output should be a view of `x` (share its storage), but it is a copy;"
    ), message


def test_a_wrong_value_with_the_right_properties_is_a_hidden_wrong_value(runner: Runner) -> None:
    wrong = "import torch\n\ndef center_rows(x):\n    return x - x.mean()\n"
    message = failed_message(judge(runner, "center-rows", wrong), "input_left_alone")
    # named after a rule, but only its values are wrong (as in the other cases): it says so,
    # with the tolerance and the largest error, and quotes no sentence of the statement
    assert message.startswith(
        "Values beyond tolerance: the output's values are wrong (12 of 12 elements differ;"
    )
    assert "(rtol=0.0001, atol=0.0001)" in message and "rule" not in message


class _HiddenList(list[torch.Tensor]):
    def __iter__(self) -> Iterator[torch.Tensor]:
        return iter(())

    def __len__(self) -> int:
        return 0


class _HiddenDict(dict[str, torch.Tensor]):
    def items(self) -> Any:
        return []


_Pair = collections.namedtuple("_Pair", "first second")

# Each returns a view of `x` inside a container of a class other than the built-in's own.
_WRAPPED_ALIASES = {
    "named tuple": lambda x: _Pair(x + 1, x[0]),
    "torch's return type": lambda x: torch.return_types.max((x + 1, x[0])),
    "list subclass": lambda x: _HiddenList([x + 1, x[1]]),
    "dict subclass": lambda x: {"parts": _HiddenDict(view=x.view(-1))},
}


@pytest.mark.parametrize("kind", sorted(_WRAPPED_ALIASES))
def test_an_alias_inside_any_tuple_list_or_dict_is_seen(kind: str) -> None:
    # properties=(): only the storage comparison can tell the alias (no shape to differ).
    x = torch.arange(6.0).reshape(2, 3)
    value = check_call(_WRAPPED_ALIASES[kind], x, names=["x"], properties=())
    assert value.compared["shares_storage"] == {"x": True}


def test_a_write_watch_taken_off_torchs_stack_reports_every_input_unwatched() -> None:
    # In the sandbox the source policy refuses the private name and the wrapped pop entry points
    # report tampering first; in-process, torch's own pop reaches the watch's end-of-block test.
    from torch.utils._python_dispatch import _get_current_dispatch_mode_stack, _pop_mode

    def takes_the_watch_off(x: torch.Tensor) -> torch.Tensor:
        _pop_mode()
        x.add_(1)
        x.sub_(1)
        return x + 1

    value = check_call(takes_the_watch_off, torch.zeros(3), names=["x"], properties=())
    assert value.compared["inputs_changed"] == {"x": "unwatched"}
    assert _get_current_dispatch_mode_stack() == []
