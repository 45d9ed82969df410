import math

import torch


def masked_attention(q, k, v, key_padding_mask, causal=False):
    t_q, t_k = q.shape[-2], k.shape[-2]
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    allowed = ~key_padding_mask[:, None, None, :]
    if causal:
        allowed = allowed & torch.ones(t_q, t_k, dtype=torch.bool).tril()
    # No NaN, but a row with every key masked becomes a uniform average of v instead of zeros.
    scores = scores.masked_fill(~allowed, -1e9)
    return torch.softmax(scores, dim=-1) @ v
