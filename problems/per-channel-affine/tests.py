"""Tests for per-channel-affine.

Inputs of rank 2 to 5, channel counts that collide with the last dimension's size (where
broadcasting against the wrong axis silently gives numbers of the right shape), a random family of
ranks, batch sizes and channel counts (check_family), and the caller's tensor checked after the call
(check_call).
"""

import torch

from runner.testing import case, check_call, check_family, samples

SHAPES = "`x.dim()` is between 2 and 5; `N` may be 0; `C >= 1`; trailing dimensions may have size 1."
NO_CHANGE = "Do not modify `x`; the hidden tests check it after the call."

RTOL, ATOL = 1e-5, 1e-6


def _random(shape, seed):
    g = torch.Generator().manual_seed(seed)
    c = shape[1]
    x = torch.randn(*shape, generator=g)
    scale = torch.randn(c, generator=g)
    shift = torch.randn(c, generator=g)
    return x, scale, shift


def _run(solution, x, scale, shift):
    before = x.clone()
    out = solution.per_channel_affine(x, scale, shift)
    return {
        "out": out,
        "shape": list(out.shape),
        "dtype": str(out.dtype),
        "x_unchanged": bool(torch.equal(x, before)),
    }


@case(public=True, rtol=RTOL, atol=ATOL)
def example(solution):
    x = torch.tensor([[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], [[-1.0, 0.0], [0.5, 1.5], [2.0, -2.0]]])
    return solution.per_channel_affine(x, torch.tensor([2.0, -1.0, 0.5]), torch.tensor([0.0, 10.0, 1.0]))


@case(rtol=RTOL, atol=ATOL)
def images_4d(solution):
    return _run(solution, *_random((2, 3, 4, 5), 1))


@case(rtol=RTOL, atol=ATOL)
def features_2d(solution):
    return _run(solution, *_random((6, 4), 2))


@case(rtol=RTOL, atol=ATOL)
def sequences_3d(solution):
    return _run(solution, *_random((3, 5, 7), 3))


@case(rtol=RTOL, atol=ATOL)
def volumes_5d(solution):
    return _run(solution, *_random((2, 3, 2, 3, 4), 4))


@case(rtol=RTOL, atol=ATOL)
def channels_equal_last_dim(solution):
    # C == W: scale broadcasts against W without any error, but along the wrong axis.
    return _run(solution, *_random((2, 4, 3, 4), 5))


@case(rtol=RTOL, atol=ATOL)
def square_3d(solution):
    return _run(solution, *_random((2, 3, 3), 6))


@case(rtol=RTOL, atol=ATOL)
def one_channel_one_sample(solution):
    return _run(solution, *_random((1, 1, 2, 2), 7))


@case(rtol=RTOL, atol=ATOL)
def trailing_dims_of_size_one(solution):
    return _run(solution, *_random((3, 2, 1, 1), 8))


@case(rtol=RTOL, atol=ATOL)
def float64_input(solution):
    x, scale, shift = _random((2, 3, 4), 9)
    return _run(solution, x.double(), scale.double(), shift.double())


@case
def empty_batch(solution):
    x, scale, shift = _random((0, 3, 2), 10)
    out = solution.per_channel_affine(x, scale, shift)
    return {"shape": list(out.shape), "dtype": str(out.dtype)}


@case(rtol=RTOL, atol=ATOL, rule="input-not-modified")
def input_left_untouched(solution):
    return check_call(
        solution.per_channel_affine,
        *_random((4, 3, 2, 2), 11),
        constraint=NO_CHANGE,
        properties=("shape", "dtype"),
    )


def _random_call(generator, channels):
    """Rank 2 to 5, N from 0 to 3, trailing sizes from 1 to 4 (the last one sometimes equal to C)."""
    rank = int(torch.randint(2, 6, (1,), generator=generator).item())
    n = int(torch.randint(0, 4, (1,), generator=generator).item())
    trailing = [int(v) for v in torch.randint(1, 5, (rank - 2,), generator=generator)]
    if trailing and bool(torch.rand((), generator=generator) < 0.5):
        trailing[-1] = channels
    x = torch.randn(n, channels, *trailing, generator=generator)
    return x, torch.randn(channels, generator=generator), torch.randn(channels, generator=generator)


@case(rtol=RTOL, atol=ATOL)
def random_family(solution):
    """Channel counts 1 to 8 with random ranks, batch sizes and trailing dimensions."""
    return check_family(
        solution.per_channel_affine,
        samples(_random_call, seed=5, sizes=(1, 2, 3, 4, 5, 8)),
        constraint=SHAPES,
    )


@case(rule="input-not-modified")
def input_never_written(solution):
    """Modify-and-restore leaves the values right but moves the tensors' version counters."""
    x = torch.randn(2, 3, 4, generator=torch.Generator().manual_seed(90))
    watched = [x]
    before = [t._version for t in watched]
    solution.per_channel_affine(x, torch.tensor([1.0, 2.0, 0.5]), torch.tensor([0.0, -1.0, 3.0]))
    return {"writes": [t._version - b for t, b in zip(watched, before)]}
