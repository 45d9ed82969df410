"""The statement's example notation as custom input: read from its syntax tree as data, never run."""

from __future__ import annotations

import pytest

from runner.format.inputs import InputError, input_text, read_arguments


def test_the_statements_own_examples_read_as_data() -> None:
    assert read_arguments("x = torch.tensor([[1., 2.]])") == {
        "x": {"tensor": [[1.0, 2.0]], "dtype": "float32"}
    }
    assert read_arguments("import torch\nlengths = torch.tensor([3, 1, 4, 0])\nmax_len = None") == {
        "lengths": {"tensor": [3, 1, 4, 0], "dtype": "int64"},
        "max_len": None,
    }
    assert read_arguments("{'x': torch.zeros(2, dtype=torch.float64), 'k': 2}") == {
        "x": {"tensor": [0.0, 0.0], "dtype": "float64"},
        "k": 2,
    }
    assert read_arguments("m = torch.ones(2, 3, dtype=torch.bool)")["m"] == {
        "tensor": [[True, True, True], [True, True, True]],
        "dtype": "bool",
    }
    assert read_arguments("x = torch.arange(6).reshape(2, 3).float()")["x"] == {
        "tensor": [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]],
        "dtype": "float32",
    }
    assert read_arguments("x = torch.eye(2, dtype=torch.long)")["x"]["tensor"] == [[1, 0], [0, 1]]
    assert read_arguments("x = torch.full((2,), 0.5, requires_grad=True)")["x"] == {
        "tensor": [0.5, 0.5],
        "dtype": "float32",
        "requires_grad": True,
    }
    assert read_arguments("x = torch.tensor([1, 2]).to(torch.float16)")["x"]["dtype"] == "float16"


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("x = __import__('os').system('true')", "only literal values"),
        ("x = torch.tensor(open('/etc/passwd').read())", "only literal values"),
        ("x = torch.ones(2).__class__.__bases__", "only literal values"),
        ("x = torch.load('f')", "not understood"),
        ("x = torch.tensor([1.0]).numpy()", "not understood"),
        ("torch.manual_seed(0)\nx = torch.randn(2, 3)", "random values"),
        ("x = torch.randn(2, 3)", "random values"),
        ("import os\nx = 1", "only assignments"),
        ("x, y = 1, 2", "only assignments"),
        ("x = torch.zeros(100000, 100000)", "too large"),
        ("x = torch.arange(0, 1e308, 1e-308)", "too large"),
        ("x = torch.arange(0, 10, 0)", "step must not be 0"),
        ("x = torch.ones(2).reshape(3)", "cannot reshape"),
        ("x = torch.tensor([[1], [2, 3]])", "same shape"),
        ("x = torch.tensor([1.0], dtype=torch.complex64)", "dtype must be one of"),
        ("x = torch.tensor([1.0], device=torch.device('cuda'), pin=True)", "pin="),
    ],
)
def test_anything_else_is_refused_with_its_reason_and_never_run(text: str, words: str) -> None:
    with pytest.raises(InputError, match=words):
        read_arguments(text)


def test_input_text_reads_back_as_the_same_values() -> None:
    """A counterexample's text (failure.input) is exact: float32 numbers in their own precision."""
    import torch

    x = torch.tensor([[0.1, -2.5e-8], [3.0, 1e20]])
    lengths = torch.tensor([3, 0])
    given = {
        "x": {"tensor": x.tolist(), "dtype": "float32"},
        "lengths": {"tensor": lengths.tolist(), "dtype": "int64"},
    }
    text = input_text(given | {"dim": 1})
    assert text is not None and '"tensor": [[0.1, -2.5e-8], [3.0, 1e20]]' in text
    back = read_arguments(text)
    assert torch.equal(torch.tensor(back["x"]["tensor"], dtype=torch.float32), x)
    assert back["lengths"] == {"tensor": [3, 0], "dtype": "int64"} and back["dim"] == 1
    assert input_text({"x": {"tensor": [float("nan")], "dtype": "float32"}}) is None  # not exact: none
