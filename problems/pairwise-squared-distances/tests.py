"""Tests for pairwise-squared-distances.

Both the broadcasting form and the expanded form (with clamping) are accepted: tolerances allow the
rounding of the expanded form on the magnitudes used here (|values| <= ~20, d <= 8). Identical point
sets check that no distance is negative; a counting case checks that torch.cdist is not called.
"""

import torch
import torch.functional

from runner.testing import case

RTOL, ATOL = 1e-4, 1e-3


def _points(n, d, seed, scale=1.0, offset=0.0):
    g = torch.Generator().manual_seed(seed)
    return torch.randn(n, d, generator=g) * scale + offset


def _run(solution, x, y):
    out = solution.pairwise_sq_dists(x, y)
    return {"out": out, "shape": list(out.shape), "dtype": str(out.dtype)}


@case(public=True, rtol=RTOL, atol=ATOL)
def example(solution):
    x = torch.tensor([[0.0, 0.0], [1.0, 2.0], [3.0, -1.0]])
    y = torch.tensor([[1.0, 0.0], [0.0, 2.0]])
    return solution.pairwise_sq_dists(x, y)


@case(rtol=RTOL, atol=ATOL)
def random_rectangular(solution):
    return _run(solution, _points(5, 3, 1), _points(7, 3, 2))


@case(rtol=RTOL, atol=ATOL)
def random_square(solution):
    # n == m: a transposed result has the right shape.
    return _run(solution, _points(6, 4, 3), _points(6, 4, 4))


@case(rtol=RTOL, atol=ATOL)
def size_ladder(solution):
    return [
        solution.pairwise_sq_dists(_points(n, d, 10 + n), _points(m, d, 20 + m))
        for n, m, d in [(1, 1, 1), (2, 3, 2), (8, 5, 8), (16, 12, 5)]
    ]


@case(rtol=RTOL, atol=ATOL)
def single_dimension(solution):
    return _run(solution, torch.tensor([[0.0], [2.0], [-1.0]]), torch.tensor([[1.0], [5.0]]))


@case(rtol=RTOL, atol=ATOL)
def identical_sets_are_never_negative(solution):
    x = _points(12, 4, 5, scale=3.0, offset=10.0)
    out = solution.pairwise_sq_dists(x, x.clone())
    return {
        "never_negative": bool((out >= 0).all()),
        "diagonal": out.diagonal(),
        "symmetric_gap_small": bool((out - out.T).abs().max() <= 1e-2),
    }


@case(rtol=RTOL, atol=ATOL)
def duplicated_points(solution):
    x = torch.tensor([[1.5, -2.0, 0.25]] * 3 + [[0.0, 0.0, 0.0]])
    out = solution.pairwise_sq_dists(x, x[:2].clone())
    return {"out": out, "never_negative": bool((out >= 0).all())}


@case(rtol=RTOL, atol=ATOL)
def offset_clouds(solution):
    return _run(solution, _points(4, 3, 6, scale=2.0, offset=5.0), _points(3, 3, 7, scale=2.0, offset=-5.0))


@case(rtol=1e-9, atol=1e-9)
def float64_inputs(solution):
    return _run(solution, _points(4, 3, 8).double(), _points(5, 3, 9).double())


@case
def empty_x(solution):
    out = solution.pairwise_sq_dists(torch.empty(0, 3), _points(4, 3, 10))
    return {"shape": list(out.shape), "dtype": str(out.dtype)}


@case
def empty_y(solution):
    out = solution.pairwise_sq_dists(_points(2, 3, 11), torch.empty(0, 3))
    return {"shape": list(out.shape), "dtype": str(out.dtype)}


@case(rtol=RTOL, atol=ATOL)
def no_cdist(solution):
    """Count calls to torch.cdist while the solution runs (must be zero)."""
    calls = []
    originals = (torch.cdist, torch.functional.cdist)

    def counting(*args, **kwargs):
        calls.append(1)
        return originals[0](*args, **kwargs)

    torch.cdist = counting
    torch.functional.cdist = counting
    try:
        out = solution.pairwise_sq_dists(_points(3, 2, 12), _points(4, 2, 13))
    finally:
        torch.cdist, torch.functional.cdist = originals
    return {"cdist_calls": len(calls), "out": out}
