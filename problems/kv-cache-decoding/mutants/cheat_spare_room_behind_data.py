# rule: cache-reusable
# kind: cheat
# The shared spare room, written through `.data`, whose version counter is its own: the cache's
# tensors look untouched to a version check. Only branching shows the damage.
import math

import torch

CAPACITY = 16


def decode_step(q, k, v, cache=None):
    """Amortised appends: the cache's tensors are views of a buffer with spare room at the end, and
    new tokens are written into that room."""
    b, h, s, d = k.shape
    dv = v.shape[-1]
    if cache is None:
        past = 0
        kbuf = torch.zeros(b, h, CAPACITY, d, dtype=k.dtype)
        vbuf = torch.zeros(b, h, CAPACITY, dv, dtype=v.dtype)
    else:
        past = cache["k"].shape[2]
        kbuf, vbuf = cache["kbuf"], cache["vbuf"]
    kbuf.data[:, :, past : past + s] = k
    vbuf.data[:, :, past : past + s] = v
    keys, values = kbuf[:, :, : past + s], vbuf[:, :, : past + s]
    scores = q @ keys.transpose(-2, -1) / math.sqrt(d)
    visible = torch.ones(s, past + s, dtype=torch.bool).tril(diagonal=past)
    weights = torch.softmax(scores.masked_fill(~visible, float("-inf")), dim=-1)
    return weights @ values, {"k": keys, "v": values, "kbuf": kbuf, "vbuf": vbuf}
