"""Tests for sliding-windows-view.

Window sizes and steps (overlapping, touching, with gaps, a single window, no window), leading
batch dimensions, transposed and sliced inputs (whose strides are not the contiguous ones), and
view checks: shared storage, strides, a write to x after the call, and a backward pass; a random
family of lengths, windows and steps (check_family), and check_call for the view-vs-copy message.
"""

import torch

from runner.testing import case, check_call, check_family, check_gradients, samples

NO_COPY = (
    "No copy when there is a window: the hidden tests compare strides, storage pointers and offsets, "
    "write to `x` after the call and read the result again, and backpropagate through it."
)
SHAPES = "`x` has 1 to 3 dimensions and at most 64 elements; $1 \\le k, s \\le 12$."


def _random_call(generator, size):
    """x of shape (rows, size) and a window k and step s up to 4: some calls have no window."""
    rows = int(torch.randint(1, 4, (1,), generator=generator).item())
    k, s = (int(v) for v in torch.randint(1, 5, (2,), generator=generator))
    return torch.randn(rows, size, generator=generator), k, s


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
    return solution.sliding_windows(torch.tensor([0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0]), 3, 2)


@case
def window_and_step_ladder(solution):
    x = torch.arange(10.0)
    return [
        solution.sliding_windows(x, k, s)
        for k, s in [(1, 1), (2, 1), (3, 3), (2, 4), (4, 3), (10, 1), (10, 5), (9, 2)]
    ]


@case(rule="no-copy")
def is_a_view_1d(solution):
    """Shares x's storage, not contiguous (overlapping windows), x's dtype, x left alone."""
    x = _random((11,), 1)
    return check_call(solution.sliding_windows, x, 4, 3, constraint=NO_COPY)


@case
def random_family(solution):
    """Lengths 1 to 12 with random windows and steps, some longer than x."""
    return check_family(
        solution.sliding_windows,
        samples(_random_call, seed=9, sizes=(1, 2, 3, 4, 5, 7, 9, 12)),
        names=["x", "k", "s"],
        constraint=SHAPES,
    )


@case
def batched_2d(solution):
    x = _random((3, 9), 2)
    return _describe(x, solution.sliding_windows(x, 3, 2))


@case
def batched_3d(solution):
    x = _random((2, 3, 8), 3)
    return _describe(x, solution.sliding_windows(x, 5, 1))


@case
def transposed_input(solution):
    x = _random((7, 3), 4).T  # shape (3, 7), strides (1, 3)
    return _describe(x, solution.sliding_windows(x, 3, 2))


@case
def sliced_input(solution):
    base = _random((4, 12), 5)
    x = base[1:3, 2::2]  # shape (2, 5), offset 14, strides (12, 2)
    return _describe(x, solution.sliding_windows(x, 2, 1))


@case
def shorter_than_window(solution):
    out_1d = solution.sliding_windows(torch.arange(3.0), 5, 1)
    out_2d = solution.sliding_windows(_random((4, 2), 6), 3, 2)
    return {
        "shape_1d": list(out_1d.shape),
        "shape_2d": list(out_2d.shape),
        "dtype": str(out_2d.dtype),
    }


@case(rule="no-copy")
def writes_to_x_show_through(solution):
    x = torch.arange(8.0)
    out = solution.sliding_windows(x, 4, 2)
    x[4] = -100.0  # a view sees this in two windows; a copy sees nothing
    return out


@case
def gradient_sums_overlaps(solution):
    """d/dx against the reference's and finite differences (float64): overlapping windows add up."""
    return check_gradients(solution.sliding_windows, _random((2, 7), 7), 3, 2, constraint=NO_COPY)


@case
def integer_dtype(solution):
    x = torch.arange(12, dtype=torch.int64).reshape(2, 6)
    return _describe(x, solution.sliding_windows(x, 2, 2))
