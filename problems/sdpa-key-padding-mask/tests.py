"""Tests for sdpa-key-padding-mask.

Random q/k/v with random padding, with and without the causal mask, Tq != Tk, Dv != D, left padding
that leaves the first causal rows with no key, a batch element with every key padded, float64,
gradients through fully masked rows, input integrity, and no route to the built-in attention (forbid_ops).
"""

import torch

from runner.testing import case, check_call, check_gradients, forbid_ops

FINITE_GRADIENTS = (
    "For a query whose keys are all disallowed, the output row is all zeros, and gradients with respect "
    "to `q`, `k` and `v` must be finite everywhere (the hidden tests call `backward()`)."
)
NO_CHANGE = "Do not modify the inputs."
NO_BUILTIN = (
    "Do not use `F.scaled_dot_product_attention`, `nn.MultiheadAttention` or "
    "`F.multi_head_attention_forward`: a hidden test detects any call to them, whatever the route."
)
RTOL = 1e-5
ATOL = 1e-5


def qkv(seed, b, h, tq, tk, d, dv=None, dtype=torch.float32):
    g = torch.Generator().manual_seed(seed)
    q = torch.randn(b, h, tq, d, generator=g, dtype=dtype)
    k = torch.randn(b, h, tk, d, generator=g, dtype=dtype)
    v = torch.randn(b, h, tk, dv or d, generator=g, dtype=dtype)
    return q, k, v


def lengths_mask(lengths, t_k, left=False):
    """True where padded: the last (or, with left=True, the first) positions beyond each length."""
    pos = torch.arange(t_k)
    lens = torch.tensor(lengths)[:, None]
    return pos[None, :] < (t_k - lens) if left else pos[None, :] >= lens


@case(public=True, rtol=RTOL, atol=ATOL)
def example(solution):
    q = torch.tensor([[[[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]]])
    k = torch.tensor([[[[1.0, 0.0], [0.0, 1.0], [5.0, 5.0]]]])
    v = torch.tensor([[[[1.0, 2.0], [3.0, 4.0], [100.0, 100.0]]]])
    return solution.masked_attention(q, k, v, torch.tensor([[False, False, True]]), causal=False)


@case(rtol=RTOL, atol=ATOL)
def padding_only(solution):
    q, k, v = qkv(1, 2, 3, 5, 5, 8)
    return solution.masked_attention(q, k, v, lengths_mask([5, 3], 5))


@case(rtol=RTOL, atol=ATOL)
def cross_attention_shapes(solution):
    q, k, v = qkv(2, 3, 2, 4, 7, 6, dv=3)
    return solution.masked_attention(q, k, v, lengths_mask([7, 1, 4], 7))


@case(rtol=RTOL, atol=ATOL)
def causal_with_right_padding(solution):
    q, k, v = qkv(3, 2, 2, 6, 6, 4)
    return solution.masked_attention(q, k, v, lengths_mask([6, 4], 6), causal=True)


@case(rtol=RTOL, atol=ATOL)
def causal_with_left_padding(solution):
    """Left padding: the first queries of the short sequence have no allowed key at all."""
    q, k, v = qkv(4, 2, 3, 5, 5, 4)
    return solution.masked_attention(q, k, v, lengths_mask([5, 2], 5, left=True), causal=True)


@case(rtol=RTOL, atol=ATOL)
def causal_rectangular(solution):
    q, k, v = qkv(5, 1, 2, 3, 5, 4)
    return solution.masked_attention(q, k, v, lengths_mask([4], 5), causal=True)


@case(rtol=RTOL, atol=ATOL)
def every_key_padded(solution):
    q, k, v = qkv(6, 3, 2, 4, 4, 5)
    mask = lengths_mask([4, 0, 2], 4)  # the second sequence is all padding
    out = solution.masked_attention(q, k, v, mask)
    return {"out": out, "finite": bool(torch.isfinite(out).all())}


@case(rtol=RTOL, atol=ATOL)
def large_scores(solution):
    q, k, v = qkv(7, 2, 2, 4, 6, 8)
    return solution.masked_attention(q * 30.0, k * 30.0, v, lengths_mask([6, 5], 6))


@case(rtol=1e-10, atol=1e-10)
def float64(solution):
    q, k, v = qkv(8, 2, 2, 5, 5, 4, dtype=torch.float64)
    return solution.masked_attention(q, k, v, lengths_mask([3, 5], 5, left=True), causal=True)


@case(rtol=1e-4, atol=1e-5)
def gradients_stay_finite(solution):
    """d/dq, d/dk, d/dv against the reference's and finite differences (float64); left padding leaves
    the first causal rows with no key at all."""
    q, k, v = qkv(9, 2, 2, 4, 4, 4)
    mask = lengths_mask([4, 2], 4, left=True)
    return check_gradients(
        lambda q, k, v: solution.masked_attention(q, k, v, mask, causal=True),
        q,
        k,
        v,
        constraint=FINITE_GRADIENTS,
    )


@case(rtol=RTOL, atol=ATOL, rule="inputs-not-modified")
def inputs_not_modified(solution):
    q, k, v = qkv(10, 2, 2, 3, 3, 4)
    return check_call(
        lambda q, k, v, key_padding_mask: solution.masked_attention(q, k, v, key_padding_mask, causal=True),
        q,
        k,
        v,
        lengths_mask([3, 1], 3),
        constraint=NO_CHANGE,
        properties=("shape", "dtype"),
    )


@case(rtol=RTOL, atol=ATOL, rule="no-builtin-attention")
def no_builtin_attention(solution):
    """nn.MultiheadAttention goes through F.multi_head_attention_forward (or, in its fast path, the
    fused aten kernel); the built-in attention through its CPU aten kernel."""
    names = (
        "torch.nn.functional.scaled_dot_product_attention",
        "torch.nn.functional.multi_head_attention_forward",
        "aten._scaled_dot_product_flash_attention_for_cpu",
        "aten._native_multi_head_attention",
    )
    with forbid_ops(dict.fromkeys(names, NO_BUILTIN)):
        q, k, v = qkv(11, 1, 2, 3, 3, 4)
        return solution.masked_attention(q, k, v, lengths_mask([2], 3), causal=True)


@case(rule="inputs-not-modified")
def inputs_never_written(solution):
    """Modify-and-restore leaves the values right but moves the tensors' version counters."""
    q, k, v = qkv(12, 2, 2, 3, 3, 4)
    mask = lengths_mask([3, 1], 3)
    watched = [q, k, v, mask]
    before = [t._version for t in watched]
    solution.masked_attention(q, k, v, mask, causal=True)
    return {"writes": [t._version - b for t, b in zip(watched, before)]}
