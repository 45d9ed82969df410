import math

import torch


def decode_step(q, k, v, cache=None):
    if cache is None:
        # starts from an empty cache, but sizes v's like k's (head dim D instead of Dv)
        b, h, _, d = k.shape
        cache = {"k": k.new_zeros(b, h, 0, d), "v": v.new_zeros(b, h, 0, d)}
    past = cache["k"].shape[2]
    k = torch.cat([cache["k"], k], dim=2)
    v = torch.cat([cache["v"], v], dim=2)
    new, total = q.shape[2], k.shape[2]
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    visible = torch.ones(new, total, dtype=torch.bool).tril(diagonal=past)
    weights = torch.softmax(scores.masked_fill(~visible, float("-inf")), dim=-1)
    return weights @ v, {"k": k, "v": v}
