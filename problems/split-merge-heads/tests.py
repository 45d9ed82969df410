"""Tests for split-merge-heads.

Exact values (tolerance 0: no arithmetic is involved) for a ladder of shapes, non-contiguous
inputs (transposed, sliced, expanded), the exact round trip both ways, the view requirement
(check_call: storage, contiguity, dtype, x untouched), and the error for an indivisible model dim.
"""

import torch

from runner.testing import case, check_call

VIEW = "When `x` is contiguous, the result must be a **view** of `x` (sharing its storage, no copy)."

EXACT = {"rtol": 0.0, "atol": 0.0}


def example_input():
    return torch.tensor([[[0.0, 1.0, 2.0, 3.0], [10.0, 11.0, 12.0, 13.0], [20.0, 21.0, 22.0, 23.0]]])


def rand(seed, *shape):
    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed))


@case(public=True, **EXACT)
def example(solution):
    return solution.split_heads(example_input(), 2)


@case(**EXACT)
def shape_ladder(solution):
    out = []
    for seed, (b, t, d, h) in enumerate(
        [(1, 1, 1, 1), (2, 3, 8, 4), (3, 5, 12, 3), (2, 7, 16, 16), (4, 2, 6, 1)]
    ):
        out.append(solution.split_heads(rand(seed, b, t, d), h))
    return out


@case(**EXACT)
def merge_values(solution):
    return [solution.merge_heads(rand(10, 2, 4, 3, 5)), solution.merge_heads(rand(11, 1, 1, 6, 2))]


@case(**EXACT)
def round_trips_are_exact(solution):
    x = rand(12, 3, 6, 20)
    y = rand(13, 2, 5, 4, 3)
    back_x = solution.merge_heads(solution.split_heads(x, 5))
    back_y = solution.split_heads(solution.merge_heads(y), 5)
    return {
        "x_equal": bool(torch.equal(back_x, x)),
        "y_equal": bool(torch.equal(back_y, y)),
        "x_shape": list(back_x.shape),
        "y_shape": list(back_y.shape),
    }


@case(**EXACT)
def non_contiguous_inputs(solution):
    base = rand(14, 6, 2, 8)
    transposed = base.transpose(0, 1)  # (2, 6, 8), not contiguous
    sliced = rand(15, 2, 5, 16)[:, :, ::2]  # every other feature: stride 2
    expanded = rand(16, 1, 3, 4).expand(3, 3, 4)  # stride 0 on the batch dim
    heads = rand(17, 2, 6, 3, 4).transpose(1, 2)  # (2, 3, 6, 4) with swapped strides
    return {
        "transposed": solution.split_heads(transposed, 4),
        "sliced": solution.split_heads(sliced, 2),
        "expanded": solution.split_heads(expanded, 2),
        "merged_from_strided": solution.merge_heads(heads),
    }


@case(**EXACT, rule="split-is-a-view")
def split_is_a_view_of_contiguous_input(solution):
    """Shares x's storage, is not contiguous (heads are strided), keeps x's dtype, leaves x alone."""
    return check_call(solution.split_heads, rand(18, 2, 3, 8), 4, constraint=VIEW)


@case(**EXACT, rule="split-is-a-view")
def split_keeps_integer_dtype_as_a_view(solution):
    x = torch.arange(2 * 3 * 6, dtype=torch.int32).reshape(2, 3, 6)
    return check_call(solution.split_heads, x, 3, constraint=VIEW)


@case(**EXACT)
def indivisible_dim_raises_value_error(solution):
    try:
        solution.split_heads(rand(19, 2, 3, 10), 4)
    except ValueError:
        return "ValueError"
    except Exception as exc:
        return type(exc).__name__
    return "no error"
