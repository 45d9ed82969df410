"""Tests for pairwise-squared-distances.

Both the broadcasting form and the expanded form (with clamping) are accepted: tolerances allow the
rounding of the expanded form on the magnitudes used here (|values| <= ~20, d <= 8). A random
family over a ladder of dimensions and set sizes (check_family); identical point sets check that no
distance is negative; forbid_ops checks that torch.cdist is not called by any route, and
assert_vectorised that no Python loop runs over the points.
"""

import torch
import torch.functional

from runner.testing import assert_vectorised, case, check_family, forbid_ops, samples

NO_CDIST = "`torch.cdist` is not allowed (a hidden test detects any call to it)."
NO_LOOP = "Return the `(n, m)` matrix of squared distances, without Python loops and without `torch.cdist`."
SHAPES = (
    "$0 \\le n, m \\le 16$, $1 \\le d \\le 8$, values of magnitude at most about 20; `x` and `y` may be the "
    "same set of points, or contain duplicates."
)

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


def _random_sets(generator, d):
    """Point sets of dimension d with 0 to 16 points each, values up to about 20."""
    n, m = (int(v) for v in torch.randint(0, 17, (2,), generator=generator))
    scale = float(torch.rand((), generator=generator)) * 5.0
    return torch.randn(n, d, generator=generator) * scale, torch.randn(m, d, generator=generator) * scale


@case(rtol=RTOL, atol=ATOL)
def size_ladder(solution):
    """A ladder of dimensions d = 1..8 with random set sizes (empty sets included)."""
    return check_family(
        solution.pairwise_sq_dists, samples(_random_sets, seed=4, sizes=(1, 2, 3, 4, 5, 8)), constraint=SHAPES
    )


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


@case(rtol=RTOL, atol=ATOL, rule="no-cdist")
def no_cdist(solution):
    names = (
        "torch.cdist",
        "torch.functional.cdist",
        "aten._cdist_forward",
        "aten._euclidean_dist",
    )
    with forbid_ops(dict.fromkeys(names, NO_CDIST)):
        return solution.pairwise_sq_dists(_points(3, 2, 12), _points(4, 2, 13))


@case(rtol=RTOL, atol=ATOL, rule="vectorised")
def no_python_loop(solution):
    """The number of tensor operations must not grow with the number of points."""

    def both_sets(n):
        return _points(n, 3, 30 + n), _points(n // 2, 3, 40 + n)

    return assert_vectorised(
        lambda sets: solution.pairwise_sq_dists(*sets), both_sets, rule=NO_LOOP, sizes=(4, 16)
    )
