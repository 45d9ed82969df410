"""Tests for safe-row-normalize.

Zero rows, rows whose norm is below ``eps`` (where max(norm, eps) and norm + eps differ), square
inputs (where a norm vector without keepdim still broadcasts), leading batch dimensions, a random
family over a ladder of widths with edge shapes (check_family), the caller's tensor after the call
(check_call), and no call to F.normalize (forbid_ops).
"""

import torch

from runner.testing import case, check_call, check_family, forbid_ops, tensor_samples

NO_NORMALIZE = "`torch.nn.functional.normalize` is not allowed (a hidden test detects any call to it)"
SHAPES = (
    "`x` is `float32` or `float64` with finite values; it may have zero rows, size-1 dimensions, or no "
    "rows at all (shape `(0, d)`)."
)
NO_CHANGE = "Do not modify `x`; the hidden tests check it after the call."

RTOL, ATOL = 1e-5, 1e-6


def _random(shape, seed, scale=1.0):
    g = torch.Generator().manual_seed(seed)
    return torch.randn(*shape, generator=g) * scale


def _run(solution, x, eps=1e-12):
    before = x.clone()
    out = solution.safe_row_normalize(x, eps)
    return {"out": out, "dtype": str(out.dtype), "x_unchanged": bool(torch.equal(x, before))}


@case(public=True, rtol=RTOL, atol=ATOL)
def example(solution):
    return solution.safe_row_normalize(torch.tensor([[3.0, 4.0], [0.0, 0.0], [1.0, -1.0]]), 1e-12)


@case(rtol=RTOL, atol=ATOL)
def random_family(solution):
    """A ladder of widths, a single row, no rows, magnitudes around 1e4, rows of -1/0/1 (some all zero)."""
    return check_family(
        lambda x: solution.safe_row_normalize(x, 1e-12), tensor_samples(seed=1), constraint=SHAPES
    )


@case(rtol=RTOL, atol=ATOL, rule="input-not-modified")
def input_left_alone(solution):
    x = _random((5, 5), 2)
    return check_call(
        solution.safe_row_normalize, x, 1e-12, constraint=NO_CHANGE, properties=("shape", "dtype")
    )


@case(rtol=RTOL, atol=ATOL)
def zero_rows_in_square(solution):
    x = _random((4, 4), 4)
    x[1] = 0.0
    x[3] = 0.0
    return _run(solution, x)


@case(rtol=RTOL, atol=ATOL)
def norms_below_eps(solution):
    # eps = 0.5: rows of norm 0.1 are divided by 0.5, rows of norm 1 and 3 by their norm.
    x = torch.tensor([[0.06, 0.08], [0.6, 0.8], [0.0, 3.0], [0.0, 0.0]])
    return _run(solution, x, eps=0.5)


@case(rtol=RTOL, atol=ATOL)
def default_eps(solution):
    out = solution.safe_row_normalize(torch.tensor([[0.0, 0.0, 0.0], [2.0, 0.0, 0.0]]))
    return out


@case(rtol=RTOL, atol=ATOL)
def batched_3d(solution):
    x = _random((2, 3, 4), 5)
    x[0, 2] = 0.0
    return _run(solution, x)


@case(rtol=RTOL, atol=ATOL)
def single_row_and_column(solution):
    return {
        "row": solution.safe_row_normalize(torch.tensor([[2.0, -2.0, 1.0]])),
        "column": solution.safe_row_normalize(torch.tensor([[-3.0], [0.0], [0.5]])),
    }


@case(rtol=RTOL, atol=ATOL)
def large_and_tiny_magnitudes(solution):
    x = torch.cat([_random((3, 4), 6, scale=1e15), _random((3, 4), 7, scale=1e-15)])
    return _run(solution, x, eps=1e-30)


@case(rtol=1e-9, atol=1e-12)
def float64_input(solution):
    return _run(solution, _random((4, 3), 8).double())


@case
def empty_input(solution):
    out = solution.safe_row_normalize(torch.empty(0, 3))
    return {"shape": list(out.shape), "dtype": str(out.dtype)}


@case(rtol=RTOL, atol=ATOL, rule="no-functional-normalize")
def no_functional_normalize(solution):
    with forbid_ops({"torch.nn.functional.normalize": NO_NORMALIZE}):
        return solution.safe_row_normalize(_random((3, 4), 9))


@case(rule="input-not-modified")
def input_never_written(solution):
    """Modify-and-restore leaves the values right but moves the tensors' version counters."""
    x = torch.tensor([[3.0, 4.0], [0.0, 0.0], [1.0, -1.0]])
    watched = [x]
    before = [t._version for t in watched]
    solution.safe_row_normalize(x)
    return {"writes": [t._version - b for t, b in zip(watched, before)]}
