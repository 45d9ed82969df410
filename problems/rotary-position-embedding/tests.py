"""Tests for rotary-position-embedding.

Values for a ladder of shapes and offsets, the half-split layout (a vector with one non-zero
feature), the cache property (rotating a slice with an offset equals slicing the full rotation),
relative-position scores, norms, float64, a custom base, odd D and input integrity.
"""

import torch

from runner.testing import case, check_call, check_family, samples

SIZES = "Positions in the tests are below 128; `D` is between 2 and 32."
NO_CHANGE = "Do not modify `x`: return a new tensor with the shape and dtype of `x`."
RTOL = 1e-4
ATOL = 1e-4


def rand(seed, *shape, dtype=torch.float32):
    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed), dtype=dtype)


@case(public=True, rtol=RTOL, atol=ATOL)
def example(solution):
    x = torch.tensor([[[[1.0, 0.0, 0.0, 1.0], [1.0, 0.0, 0.0, 1.0], [2.0, 1.0, 0.0, 0.0]]]])
    return solution.apply_rope(x, offset=1)


def _random_call(generator, half):
    """A (B, H, T, D) input with D = 2 * half, and an offset keeping every position below 128."""
    b, h, t = (int(v) for v in torch.randint(1, 5, (3,), generator=generator))
    offset = int(torch.randint(0, 128 - t, (1,), generator=generator).item())
    return torch.randn(b, h, t, 2 * half, generator=generator), offset


@case(rtol=RTOL, atol=ATOL)
def shape_and_offset_ladder(solution):
    """Head dims 2 to 32 with random batch, heads, length and offset."""
    return check_family(
        solution.apply_rope, samples(_random_call, seed=3, sizes=(1, 2, 3, 4, 8, 16)), constraint=SIZES
    )


@case(rtol=RTOL, atol=ATOL)
def pairs_are_half_split(solution):
    """One non-zero feature at a time: shows which feature each one is rotated into."""
    d = 8
    x = torch.eye(d).reshape(1, 1, d, d)  # token t has only feature t set
    return solution.apply_rope(x, offset=3)


@case(rtol=RTOL, atol=ATOL)
def cache_slices_agree(solution):
    x = rand(10, 2, 2, 9, 8)
    full = solution.apply_rope(x)
    tail = solution.apply_rope(x[:, :, 5:].clone(), offset=5)
    one = solution.apply_rope(x[:, :, 8:].clone(), offset=8)
    return {"full": full, "tail_matches": bool(torch.allclose(full[:, :, 5:], tail, atol=1e-5)), "last": one}


@case(rtol=RTOL, atol=ATOL)
def scores_depend_on_relative_position(solution):
    q = rand(11, 1, 1, 1, 16)
    k = rand(12, 1, 1, 1, 16)
    scores = []
    for m, n in [(0, 0), (5, 5), (3, 1), (12, 10), (1, 3), (40, 42)]:
        qm = solution.apply_rope(q, offset=m)
        kn = solution.apply_rope(k, offset=n)
        scores.append(float((qm * kn).sum()))
    return scores


@case(rtol=RTOL, atol=ATOL)
def norms_preserved_and_shape_dtype(solution):
    x = rand(13, 3, 2, 5, 10)
    out = solution.apply_rope(x, offset=17)
    return {"norms": out.norm(dim=-1), "shape": list(out.shape), "dtype": str(out.dtype)}


@case(rtol=1e-9, atol=1e-9)
def float64_and_custom_base(solution):
    x = rand(14, 1, 2, 4, 8, dtype=torch.float64)
    return {
        "base_500": solution.apply_rope(x, offset=2, base=500.0),
        "default": solution.apply_rope(x, offset=9),
    }


@case(rtol=RTOL, atol=ATOL, rule="input-not-modified")
def input_not_modified(solution):
    return check_call(
        solution.apply_rope, rand(15, 2, 2, 4, 8), 4, constraint=NO_CHANGE, properties=("shape", "dtype")
    )


@case
def odd_head_dim_raises_value_error(solution):
    try:
        solution.apply_rope(rand(16, 1, 1, 3, 5))
    except ValueError:
        return "ValueError"
    except Exception as exc:
        return type(exc).__name__
    return "no error"


@case(rule="input-not-modified")
def input_never_written(solution):
    """Modify-and-restore leaves the values right but moves the tensors' version counters."""
    x = rand(16, 2, 2, 4, 8)
    watched = [x]
    before = [t._version for t in watched]
    solution.apply_rope(x, 4)
    return {"writes": [t._version - b for t, b in zip(watched, before)]}
