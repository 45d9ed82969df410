# rule: inputs-not-modified
# kind: cheat
# Pre-scales the cached keys in place by a power of two and scales them back before returning:
# bit for bit the same values afterwards, so a before/after comparison sees nothing.
import math

import torch


def decode_step(q, k, v, cache=None):
    past = 0 if cache is None else cache["k"].shape[2]
    scale = 2.0 ** -int(math.log2(q.shape[-1]) // 2)
    if cache is not None:
        cache["k"].mul_(scale)
        k_all = torch.cat([cache["k"] / scale, k], dim=2)
        cache["k"].div_(scale)
        v_all = torch.cat([cache["v"], v], dim=2)
    else:
        k_all, v_all = k, v
    new, total = q.shape[2], k_all.shape[2]
    scores = q @ k_all.transpose(-2, -1) / math.sqrt(q.shape[-1])
    visible = torch.ones(new, total, dtype=torch.bool).tril(diagonal=past)
    weights = torch.softmax(scores.masked_fill(~visible, float("-inf")), dim=-1)
    return weights @ v_all, {"k": k_all, "v": v_all}
