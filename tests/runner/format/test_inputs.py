"""Arguments as data (runner/format/inputs.py): what the example input and custom input accept and refuse."""

from __future__ import annotations

import pytest
import torch

from runner.format.inputs import InputError, materialise, parse_arguments
from runner.format.problem import ProblemFormatError, parse_metadata

HEAD = 'title = "T"\ndifficulty = "easy"\ncategory = "C"\nentry_point = "f"\n'


def test_tensors_get_default_dtypes_and_plain_values_pass_through() -> None:
    data = {"x": {"tensor": [[1.0, 2.0]]}, "n": {"tensor": [3, 1]}, "m": {"tensor": [True]}, "k": 2, "s": "a"}
    parsed = parse_arguments(data)
    assert parsed["x"]["dtype"] == "float32"
    assert parsed["n"]["dtype"] == "int64"
    assert parsed["m"]["dtype"] == "bool"
    assert parsed["k"] == 2 and parsed["s"] == "a"


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"x": {"tensor": [[1.0, 2.0], [3.0]]}}, "same shape"),
        ({"x": {"tensor": [1.5], "dtype": "int64"}}, "fractional"),
        ({"x": {"tensor": [1.0], "dtype": "complex64"}}, "is not one of"),
        ({"x": {"tensor": [1, 2], "requires_grad": True}}, "floating-point"),
        ({"x": {"tensor": ["a"]}}, "numbers or booleans"),
        ({"x": {"tensor": [1.0], "device": "cuda"}}, "unknown keys"),
        ({"not a name": 1}, "not an argument name"),
        ({"x": {"tensor": [0.0] * 100_001}}, "too large"),
        ([1, 2], "table of name = value"),
    ],
)
def test_bad_input_is_refused_with_the_argument_and_the_rule(data: object, message: str) -> None:
    with pytest.raises(InputError, match=message):
        parse_arguments(data)


def test_deep_nesting_is_refused() -> None:
    value: object = 1
    for _ in range(20):
        value = [value]
    with pytest.raises(InputError, match="nested at most"):
        parse_arguments({"x": value})


def test_materialise_builds_tensors_with_dtype_and_grad() -> None:
    args = materialise(
        parse_arguments({"x": {"tensor": [[1.0, 2.0]], "dtype": "float64", "requires_grad": True}})
    )
    assert args["x"].dtype == torch.float64 and args["x"].requires_grad
    assert args["x"].tolist() == [[1.0, 2.0]]


def test_problem_toml_example_input_is_checked_with_its_location() -> None:
    meta = parse_metadata(HEAD + "[example_input]\nx = { tensor = [[1.0, 2.0]] }\ndim = 1\n", "abc")
    assert meta["example_input"] == {"x": {"tensor": [[1.0, 2.0]], "dtype": "float32"}, "dim": 1}
    with pytest.raises(ProblemFormatError, match=r"problem.toml: example_input.x.tensor"):
        parse_metadata(HEAD + "[example_input]\nx = { tensor = [[1.0], [2.0, 3.0]] }\n", "abc")
    assert parse_metadata(HEAD, "abc")["example_input"] is None
