"""Tests for kv-cache-decoding.

Decoding loops as a generator runs them: a prefill chunk, then one token at a time, or several
chunks; every step's output is compared with full causal attention over the whole sequence
(computed here independently), and the cache shapes are recorded step by step. Also: the old
cache is not modified, B/H > 1 with Dv != D, float64, a single step from an empty cache.
"""

import math

import torch

from runner.testing import case, check_call

NO_CHANGE = "Do not modify `q`, `k`, `v` or the given cache's tensors."

RTOL = 1e-5
ATOL = 1e-5


def sequence(seed, b, h, t, d, dv=None, dtype=torch.float32):
    g = torch.Generator().manual_seed(seed)
    q = torch.randn(b, h, t, d, generator=g, dtype=dtype)
    k = torch.randn(b, h, t, d, generator=g, dtype=dtype)
    v = torch.randn(b, h, t, dv or d, generator=g, dtype=dtype)
    return q, k, v


def full_causal_attention(q, k, v):
    t = q.shape[2]
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    future = torch.ones(t, t, dtype=torch.bool).triu(1)
    return torch.softmax(scores.masked_fill(future, float("-inf")), dim=-1) @ v


def decode(solution, q, k, v, chunks):
    """Feed the sequence in chunks of the given sizes; return outputs, cache shapes, full-match flag."""
    cache = None
    outs, shapes = [], []
    start = 0
    for size in chunks:
        sl = slice(start, start + size)
        out, cache = solution.decode_step(q[:, :, sl], k[:, :, sl], v[:, :, sl], cache)
        outs.append(out)
        shapes.append({"k": list(cache["k"].shape), "v": list(cache["v"].shape)})
        start += size
    joined = torch.cat(outs, dim=2)
    tol = 1e-9 if q.dtype == torch.float64 else 1e-5
    matches = bool(torch.allclose(joined, full_causal_attention(q, k, v), rtol=tol, atol=tol))
    return {"out": joined, "cache_shapes": shapes, "matches_full_attention": matches}


@case(public=True, rtol=RTOL, atol=ATOL)
def example(solution):
    cache = {"k": torch.tensor([[[[1.0, 0.0], [0.0, 1.0]]]]), "v": torch.tensor([[[[1.0, 0.0], [0.0, 1.0]]]])}
    q = torch.tensor([[[[1.0, 1.0]]]])
    k = torch.tensor([[[[0.0, 2.0]]]])
    v = torch.tensor([[[[5.0, 5.0]]]])
    out, new_cache = solution.decode_step(q, k, v, cache)
    return {"out": out.tolist(), "cache_k": new_cache["k"].tolist(), "cache_v": new_cache["v"].tolist()}


@case(rtol=RTOL, atol=ATOL)
def one_token_at_a_time(solution):
    q, k, v = sequence(1, 1, 1, 6, 4)
    return decode(solution, q, k, v, [1] * 6)


@case(rtol=RTOL, atol=ATOL)
def prefill_then_steps(solution):
    q, k, v = sequence(2, 2, 3, 8, 4, dv=6)
    return decode(solution, q, k, v, [5, 1, 1, 1])


@case(rtol=RTOL, atol=ATOL)
def chunked_prefill(solution):
    """Chunks after a non-empty cache: the mask must be offset by the cached length."""
    q, k, v = sequence(3, 2, 2, 9, 8)
    return decode(solution, q, k, v, [2, 3, 4])


@case(rtol=RTOL, atol=ATOL)
def whole_sequence_at_once(solution):
    q, k, v = sequence(4, 1, 2, 7, 4)
    return decode(solution, q, k, v, [7])


@case(rtol=1e-9, atol=1e-9)
def float64_mixed_chunks(solution):
    q, k, v = sequence(5, 2, 2, 6, 4, dtype=torch.float64)
    return decode(solution, q, k, v, [1, 2, 1, 2])


@case(rtol=RTOL, atol=ATOL)
def single_step_from_empty_cache(solution):
    q, k, v = sequence(6, 3, 2, 1, 4, dv=2)
    out, cache = solution.decode_step(q, k, v)
    return {"out": out, "cache_k": cache["k"], "cache_v": cache["v"]}


@case(rtol=RTOL, atol=ATOL, rule="cache-reusable")
def old_cache_not_modified(solution):
    q, k, v = sequence(7, 2, 2, 5, 4)
    _, cache = solution.decode_step(q[:, :, :3], k[:, :, :3], v[:, :, :3])
    saved = {name: t.clone() for name, t in cache.items()}
    inputs = [t[:, :, 3:].clone() for t in (q, k, v)]
    out, new_cache = solution.decode_step(*[t.clone() for t in inputs], cache)
    return {
        "out": out,
        "old_cache_unchanged": all(torch.equal(cache[n], saved[n]) for n in saved),
        "old_cache_shape": list(cache["k"].shape),
        "new_cache_shape": list(new_cache["k"].shape),
    }


@case(rtol=RTOL, atol=ATOL, rule="cache-reusable")
def branch_twice_from_one_cache(solution):
    """One prompt, two continuations decoded from the same cache, interleaved; each must match full
    causal attention over its own sequence, and the first branch goes on after the second ran."""
    q, k, v = sequence(9, 2, 2, 4, 3, dv=5)
    _, prompt = solution.decode_step(q[:, :, :2], k[:, :, :2], v[:, :, :2])
    branches = [sequence(10 + b, 2, 2, 3, 3, dv=5) for b in range(2)]
    caches = [prompt, prompt]
    outs = [[], []]
    for t in range(3):
        for b in range(2):
            bq, bk, bv = branches[b]
            out, caches[b] = solution.decode_step(
                bq[:, :, t : t + 1], bk[:, :, t : t + 1], bv[:, :, t : t + 1], caches[b]
            )
            outs[b].append(out)
    result = []
    for b in range(2):
        bq, bk, bv = branches[b]
        fq, fk, fv = (torch.cat([a[:, :, :2], c], dim=2) for a, c in zip((q, k, v), (bq, bk, bv)))
        expected = full_causal_attention(fq, fk, fv)[:, :, 2:]
        joined = torch.cat(outs[b], dim=2)
        result.append(
            {"out": joined, "matches_alone": bool(torch.allclose(joined, expected, rtol=RTOL, atol=ATOL))}
        )
    return result


@case(rule="inputs-not-modified")
def nothing_written(solution):
    """Modify-and-restore leaves the values right but moves the tensors' version counters."""
    q, k, v = sequence(11, 1, 2, 5, 4)
    _, cache = solution.decode_step(q[:, :, :3], k[:, :, :3], v[:, :, :3])
    watched = [q, k, v, cache["k"], cache["v"]]
    before = [t._version for t in watched]
    solution.decode_step(q[:, :, 3:], k[:, :, 3:], v[:, :, 3:], cache)
    return {"writes": [t._version - b for t, b in zip(watched, before)]}


@case(rtol=RTOL, atol=ATOL, rule="inputs-not-modified")
def inputs_and_cache_tensors_left_alone(solution):
    """Two new tokens on a three-token cache: q, k, v and the cache's k and v are compared after the call."""
    q, k, v = sequence(8, 1, 2, 5, 4)
    _, cache = solution.decode_step(q[:, :, :3], k[:, :, :3], v[:, :, :3])

    def step(q, k, v, cache_k, cache_v):
        return solution.decode_step(q, k, v, {"k": cache_k, "v": cache_v})

    new = [t[:, :, 3:].clone() for t in (q, k, v)]
    return check_call(
        step,
        *new,
        cache["k"].clone(),
        cache["v"].clone(),
        constraint=NO_CHANGE,
        properties=("shape", "dtype"),
    )
