"""Comparison of case values happens on the host, in plain Python."""

from __future__ import annotations

import math

import pytest
import torch

from runner.judging import compare
from runner.records import values


def test_tensors_are_encoded_with_shape_and_dtype() -> None:
    encoded = values.encode({"t": torch.tensor([[1.0, float("nan")]]), "pair": (1, 2)})
    assert encoded == {
        "t": {"__tensor__": {"dtype": "float32", "shape": [1, 2], "data": [1.0, {"__float__": "nan"}]}},
        "pair": [1, 2],
    }


def test_unsupported_values_are_refused_with_a_clear_message() -> None:
    with pytest.raises(values.UnsupportedValue, match="sets have no order"):
        values.encode({1, 2})
    with pytest.raises(values.UnsupportedValue, match="reserved"):
        values.encode({"__tensor__": 1})


def test_numbers_within_tolerance_match() -> None:
    assert compare.compare(1.0, 1.00005, rtol=1e-4, atol=1e-4) is None
    mismatch = compare.compare({"a": [1.0, 2.0]}, {"a": [1.0, 2.1]}, rtol=1e-4, atol=1e-4)
    assert mismatch is not None and mismatch.path == "['a'][1]" and "expected 2" in mismatch.reason


def test_nan_matches_only_nan_and_inf_only_itself() -> None:
    nan, inf = values.encode(math.nan), values.encode(math.inf)
    assert compare.compare(nan, nan, 0, 0) is None
    assert compare.compare(nan, 1.0, 1, 1) is not None
    assert compare.compare(inf, values.encode(-math.inf), 1, 1) is not None


def test_tensor_mismatches_say_what_differs() -> None:
    a = values.encode(torch.zeros(2, 3))
    assert "shape" in compare.compare(a, values.encode(torch.zeros(3, 2)), 0, 0).reason
    assert "dtype" in compare.compare(a, values.encode(torch.zeros(2, 3, dtype=torch.float64)), 0, 0).reason
    off = values.encode(torch.tensor([[0.0, 0.0, 0.5], [0.0, 0.0, 0.0]]))
    reason = compare.compare(a, off, 1e-4, 1e-4).reason
    assert "1 of 6" in reason and "largest error is 0.5" in reason and "index [0, 2]" in reason


def test_types_must_agree() -> None:
    assert "expected a list, got a dict" in compare.compare([1], {"a": 1}, 0, 0).reason
    assert compare.compare(True, 1, 0, 0) is not None  # a bool is not a number
    assert "missing key 'b'" in compare.compare({"a": 1, "b": 2}, {"a": 1}, 0, 0).reason


def test_display_is_readable_and_bounded() -> None:
    shown = values.to_display(values.encode({"x": torch.tensor([1.5, 2.0])}))
    assert shown == "{'x': tensor([1.5, 2.0])}"
    # nested like the statement, in the dtype's own precision; big tensors summarised with the shape
    assert values.to_display(values.encode(torch.tensor([[0.6, 1.0], [2.0, 3.0]]))) == (
        "tensor([[0.6, 1.0],\n        [2.0, 3.0]])"
    )
    assert values.to_display(values.encode(torch.tensor([0.1], dtype=torch.float64))) == (
        "tensor([0.1], dtype=float64)"
    )
    assert values.to_display(values.encode(torch.tensor([1, 2], dtype=torch.int32))) == (
        "tensor([1, 2], dtype=int32)"
    )
    big = values.to_display(values.encode(torch.zeros(20, 30)))
    assert big.startswith("tensor of shape (20, 30), dtype float32: [0.0, 0.0") and "of 600 values" in big
    assert len(values.to_display(list(range(10_000)), limit=100)) == 100


def test_the_one_verdict_type() -> None:
    from runner.verdict import Verdict

    assert Verdict.WRONG_ANSWER == "wrong_answer" and Verdict.WRONG_ANSWER.label == "Wrong Answer"
    assert Verdict.TIME_LIMIT_EXCEEDED is Verdict.TIME_LIMIT_EXCEEDED
    assert Verdict.parse("accepted") is Verdict.ACCEPTED and Verdict.parse("nonsense") is None
    assert Verdict.parse(None) is None
    assert Verdict.INTERNAL_ERROR.precedence < Verdict.RUNTIME_ERROR.precedence < Verdict.ACCEPTED.precedence
    assert "vectorised" in Verdict.TIME_LIMIT_EXCEEDED.explanation and Verdict.ACCEPTED.explanation == ""


def test_float_tensors_are_encoded_exactly_whatever_their_values() -> None:
    """One pass when every element is finite; NaN, infinities and sums that overflow still exact."""
    inf = float("inf")
    cases = {
        "finite": ([0.5, -2.0, 0.0], [0.5, -2.0, 0.0]),
        "non-finite": ([1.0, inf, -inf], [1.0, {"__float__": "inf"}, {"__float__": "-inf"}]),
        "overflowing sum": ([3e38, 3e38], [float(torch.tensor(3e38)), float(torch.tensor(3e38))]),
        "cancelling infinities": ([inf, -inf], [{"__float__": "inf"}, {"__float__": "-inf"}]),
    }
    for name, (given, wanted) in cases.items():
        data = values.encode(torch.tensor(given))["__tensor__"]["data"]
        assert data == wanted, name
    assert values.encode(torch.zeros(0, dtype=torch.float64))["__tensor__"]["data"] == []
    assert values.encode(torch.tensor([1, 2]))["__tensor__"]["data"] == [1, 2]


def test_a_patched_tolist_is_judged_on_what_it_returns_or_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(torch.Tensor, "tolist", lambda self: [1, True])
    assert values.encode(torch.zeros(2))["__tensor__"]["data"] == [1.0, 1.0]  # floats, as before
    monkeypatch.setattr(torch.Tensor, "tolist", lambda self: [[0.0]])
    with pytest.raises(TypeError):  # the harness reports it as the case's error
        values.encode(torch.zeros(1))
    monkeypatch.setattr(torch.Tensor, "tolist", lambda self: "0.0")
    with pytest.raises(ValueError):
        values.encode(torch.zeros(1))
