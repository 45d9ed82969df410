"""Tests for tile-with-expand.

Values alone cannot tell a view from a copy, so the cases also return the strides, whether the
result uses x's storage at x's offset, and what the result shows after x is written to. Inputs
include transposed and sliced (non-contiguous) tensors, 0-d tensors, n = 0 and n = 1, integer and
boolean dtypes, and a backward pass through the view. check_call words the view-vs-copy
message.
"""

import torch

from runner.testing import case, check_call, check_gradients

CONNECTED = "If `x` requires gradients, the result must be connected to it (a view is)."
NO_COPY = (
    "No copy: `repeat`, `stack`, `cat`, `clone`, `contiguous` (on `x` or on the result) all fail the hidden "
    "tests, which compare strides, storage pointers and offsets, and write to `x` after the call."
)


def _random(shape, seed):
    g = torch.Generator().manual_seed(seed)
    return torch.randn(*shape, generator=g)


def _describe(x, out):
    return {
        "out": out,
        "shape": list(out.shape),
        "stride": list(out.stride()),
        "shares_storage": out.untyped_storage().data_ptr() == x.untyped_storage().data_ptr(),
        "same_offset": out.storage_offset() == x.storage_offset(),
    }


@case(public=True)
def example(solution):
    return solution.tile_view(torch.tensor([1.0, 2.0, 3.0]), 2)


@case(rule="no-copy")
def vector_is_a_view(solution):
    """Shares x's storage, not contiguous (stride 0 on the new axis), x's dtype, x left alone."""
    x = _random((4,), 1)
    return check_call(solution.tile_view, x, 3, constraint=NO_COPY)


@case
def matrix_is_a_view(solution):
    x = _random((3, 4), 2)
    return _describe(x, solution.tile_view(x, 5))


@case
def transposed_input_is_not_copied(solution):
    x = _random((3, 4), 3).T  # shape (4, 3), strides (1, 4): not contiguous
    return _describe(x, solution.tile_view(x, 2))


@case
def sliced_input_keeps_offset(solution):
    base = _random((5, 6), 4)
    x = base[1:4, ::2]  # storage offset 6, strides (6, 2)
    return _describe(x, solution.tile_view(x, 3))


@case(rule="no-copy")
def writes_to_x_show_through(solution):
    x = torch.arange(6.0).reshape(2, 3)
    out = solution.tile_view(x, 4)
    x[0, 1] = 100.0  # a view sees this write; a copy does not
    x[1].mul_(-1.0)
    return out


@case
def zero_dim_input(solution):
    x = torch.tensor(7.5)
    return _describe(x, solution.tile_view(x, 4))


@case
def one_copy(solution):
    x = _random((2, 2), 5)
    return _describe(x, solution.tile_view(x, 1))


@case
def zero_copies(solution):
    out = solution.tile_view(_random((2, 3), 6), 0)
    return {"shape": list(out.shape), "dtype": str(out.dtype)}


@case
def integer_and_bool_dtypes(solution):
    xi = torch.tensor([[1, -2], [3, 4]], dtype=torch.int32)
    xb = torch.tensor([True, False, True])
    return {"int": _describe(xi, solution.tile_view(xi, 2)), "bool": _describe(xb, solution.tile_view(xb, 3))}


@case
def gradient_flows_back(solution):
    """d/dx against the reference's and finite differences (float64): the n copies add up."""
    return check_gradients(solution.tile_view, _random((3,), 7), 4, constraint=CONNECTED)


@case
def size_one_dims(solution):
    x = _random((1, 3, 1), 9)
    return _describe(x, solution.tile_view(x, 2))
