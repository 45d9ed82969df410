"""Tests for chunked-attention.

Outputs are compared with full attention (computed here independently, and by the reference) for
chunk sizes that divide Tk, that do not, chunk 1 and chunk >= Tk; causal and key-padding masks,
left padding (a row's first chunks are all masked), a fully padded sequence, large scores, float64,
and a random family over key lengths, chunk sizes, causality and padding (check_family).
One case watches every tensor the solution's torch calls return (through a TorchFunctionMode,
which is cheap to enter) and reports whether any non-view is larger than the stated bound.
"""

import math

import torch
from torch.overrides import TorchFunctionMode

from runner.testing import case, check_call, check_family, forbid_ops, samples

NO_BUILTIN = (
    "Do not use `F.scaled_dot_product_attention` or `nn.MultiheadAttention` (a hidden test detects any call "
    "to them, whatever the route)."
)
NO_CHANGE = "Do not modify the inputs."
SIZES = "The hidden tests use `Tq, Tk <= 32`, chunk sizes from 1 to 16, float32 and float64."

RTOL = 1e-5
ATOL = 1e-5


def qkv(seed, b, h, tq, tk, d, dv=None, dtype=torch.float32):
    g = torch.Generator().manual_seed(seed)
    q = torch.randn(b, h, tq, d, generator=g, dtype=dtype)
    k = torch.randn(b, h, tk, d, generator=g, dtype=dtype)
    v = torch.randn(b, h, tk, dv or d, generator=g, dtype=dtype)
    return q, k, v


def full_attention(q, k, v, causal=False, key_padding_mask=None):
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    allowed = torch.ones_like(scores, dtype=torch.bool)
    if causal:
        allowed = allowed & torch.ones(q.shape[2], k.shape[2], dtype=torch.bool).tril()
    if key_padding_mask is not None:
        allowed = allowed & ~key_padding_mask[:, None, None, :]
    has_key = allowed.any(-1, keepdim=True)
    scores = scores.masked_fill(~allowed, float("-inf")).masked_fill(~has_key, 0.0)
    return (torch.softmax(scores, dim=-1) * has_key) @ v


def checked(solution, q, k, v, chunk, **kw):
    out = solution.chunked_attention(q, k, v, chunk, **kw)
    tol = 1e-9 if q.dtype == torch.float64 else 1e-5
    return {
        "out": out,
        "equals_full_attention": bool(torch.allclose(out, full_attention(q, k, v, **kw), rtol=tol, atol=tol)),
    }


class LargestAllocation(TorchFunctionMode):
    """Records the element count of the largest storage a tensor any torch call returns lives in.

    Every torch function, tensor method and operator called by the solution (factories such as
    torch.ones included) passes through here. A view (a slice, a transpose) is measured by the
    storage it shares: a slice of ``k`` by ``k``'s, and a view of a buffer no torch call returned by
    that buffer (``torch.einsum`` hands back a view of its internal product: the whole score matrix,
    worked on in place, was once measured as nothing).
    """

    def __init__(self):
        super().__init__()
        self.largest = 0
        self.op = ""

    def __torch_function__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        for t in out if isinstance(out, (tuple, list)) else (out,):
            if isinstance(t, torch.Tensor):
                size = t.untyped_storage().nbytes() // t.element_size()
                if size > self.largest:
                    self.largest, self.op = size, getattr(func, "__name__", str(func))
        return out


@case(public=True, rtol=RTOL, atol=ATOL)
def example(solution):
    q = torch.tensor([[[[1.0, 0.0], [0.0, 1.0]]]])
    k = torch.tensor([[[[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]]])
    v = torch.tensor([[[[1.0, 0.0], [0.0, 1.0], [2.0, 2.0]]]])
    return solution.chunked_attention(q, k, v, 2)


@case(rtol=RTOL, atol=ATOL)
def chunk_size_ladder(solution):
    q, k, v = qkv(1, 2, 2, 5, 11, 4, dv=3)
    return [checked(solution, q, k, v, c) for c in (1, 3, 4, 11, 16)]


@case(rtol=RTOL, atol=ATOL)
def causal_square(solution):
    q, k, v = qkv(2, 2, 3, 9, 9, 4)
    return [checked(solution, q, k, v, c, causal=True) for c in (2, 4, 9)]


@case(rtol=RTOL, atol=ATOL)
def right_padding(solution):
    q, k, v = qkv(3, 3, 2, 4, 10, 4)
    mask = torch.arange(10)[None, :] >= torch.tensor([10, 7, 2])[:, None]
    return checked(solution, q, k, v, 3, key_padding_mask=mask)


@case(rtol=RTOL, atol=ATOL)
def left_padding_leading_chunks_masked(solution):
    """The first chunks of the second sequence hold only padding."""
    q, k, v = qkv(4, 2, 2, 3, 12, 4)
    mask = torch.arange(12)[None, :] < torch.tensor([0, 7])[:, None]
    return checked(solution, q, k, v, 3, key_padding_mask=mask)


@case(rtol=RTOL, atol=ATOL)
def causal_and_padding(solution):
    q, k, v = qkv(5, 2, 2, 8, 8, 4)
    mask = torch.arange(8)[None, :] < torch.tensor([3, 0])[:, None]  # left padding: early rows see nothing
    return checked(solution, q, k, v, 3, causal=True, key_padding_mask=mask)


@case(rtol=RTOL, atol=ATOL)
def fully_padded_sequence(solution):
    q, k, v = qkv(6, 2, 1, 3, 6, 2)
    mask = torch.tensor([[False] * 6, [True] * 6])
    out = solution.chunked_attention(q, k, v, 4, key_padding_mask=mask)
    return {"out": out, "finite": bool(torch.isfinite(out).all())}


@case(rtol=RTOL, atol=ATOL)
def large_scores(solution):
    q, k, v = qkv(7, 1, 2, 6, 10, 8)
    return checked(solution, q * 40.0, k * 40.0, v, 4)


@case(rtol=1e-9, atol=1e-9)
def float64(solution):
    q, k, v = qkv(8, 2, 2, 7, 13, 4, dtype=torch.float64)
    return checked(solution, q, k, v, 5, causal=True)


@case(rule="inputs-not-modified")
def inputs_never_written(solution):
    """Modify-and-restore leaves the values right but moves the tensors' version counters."""
    q, k, v = qkv(12, 1, 2, 5, 7, 4)
    mask = torch.tensor([[False, True, False, False, False, True, False]])
    watched = [q, k, v, mask]
    before = [t._version for t in watched]
    solution.chunked_attention(q, k, v, 3, causal=True, key_padding_mask=mask)
    return {"writes": [t._version - b for t, b in zip(watched, before)]}


@case(rtol=RTOL, atol=ATOL, rule="inputs-not-modified")
def inputs_not_modified(solution):
    q, k, v = qkv(9, 1, 2, 4, 6, 4)
    mask = torch.tensor([[False, False, True, False, False, True]])
    return check_call(
        lambda q, k, v, mask: solution.chunked_attention(q, k, v, 4, causal=True, key_padding_mask=mask),
        q,
        k,
        v,
        mask,
        constraint=NO_CHANGE,
        properties=("shape", "dtype"),
    )


@case(rtol=RTOL, atol=ATOL, rule="memory-bound")
def never_builds_the_score_matrix(solution):
    """Largest allocation <= max(B*H*Tq*chunk, numel of q, k, v and the output)."""
    b, h, t, d, chunk = 1, 2, 32, 4, 4
    q, k, v = qkv(10, b, h, t, t, d)
    mask = torch.zeros(b, t, dtype=torch.bool)
    bound = max(b * h * t * chunk, q.numel(), k.numel(), v.numel())
    with LargestAllocation() as plain:
        out = solution.chunked_attention(q, k, v, chunk)
    with LargestAllocation() as masked:
        solution.chunked_attention(q, k, v, chunk, causal=True, key_padding_mask=mask)
    return {
        "out": out,
        "within_bound": plain.largest <= bound,
        "within_bound_with_masks": masked.largest <= bound,
    }


@case(rtol=RTOL, atol=ATOL, rule="no-builtin-attention")
def no_builtin_attention(solution):
    """nn.MultiheadAttention goes through F.multi_head_attention_forward (or its fused aten kernel)."""
    names = (
        "torch.nn.functional.scaled_dot_product_attention",
        "torch.nn.functional.multi_head_attention_forward",
        "aten._scaled_dot_product_flash_attention_for_cpu",
        "aten._native_multi_head_attention",
    )
    with forbid_ops(dict.fromkeys(names, NO_BUILTIN)):
        q, k, v = qkv(11, 1, 2, 3, 5, 4)
        return solution.chunked_attention(q, k, v, 2, causal=True)


def _random_call(generator, tk):
    """Tk keys (some padded), a random Tq <= 32, chunk size 1..16, causal or not."""
    tq = int(torch.randint(1, 33, (1,), generator=generator).item())
    chunk = int(torch.randint(1, 17, (1,), generator=generator).item())
    causal = bool(torch.rand((), generator=generator) < 0.5)
    b, h, d = 2, 2, 4
    q = torch.randn(b, h, tq, d, generator=generator)
    k = torch.randn(b, h, tk, d, generator=generator)
    v = torch.randn(b, h, tk, 3, generator=generator)
    padding = torch.rand(b, tk, generator=generator) < 0.3
    return q, k, v, chunk, causal, padding


@case(rtol=RTOL, atol=ATOL)
def random_family(solution):
    """Key lengths 1 to 32 with random query lengths, chunk sizes, causality and padding."""

    def attend(q, k, v, chunk, causal, padding):
        return solution.chunked_attention(q, k, v, chunk, causal=causal, key_padding_mask=padding)

    return check_family(
        attend, samples(_random_call, seed=13, sizes=(1, 2, 3, 5, 8, 17, 32)), constraint=SIZES
    )
