import math

import torch


def masked_attention(q, k, v, key_padding_mask, causal=False):
    t_q, t_k = q.shape[-2], k.shape[-2]
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if t_q == t_k:
        allowed = ~key_padding_mask[:, None, :, None]  # masks padded *queries* (rows), not keys
    else:
        allowed = ~key_padding_mask[:, None, None, :]
    allowed = allowed.expand(-1, -1, t_q, t_k)
    if causal:
        allowed = allowed & torch.ones(t_q, t_k, dtype=torch.bool).tril()
    has_key = allowed.any(-1, keepdim=True)
    scores = scores.masked_fill(~allowed, float("-inf")).masked_fill(~has_key, 0.0)
    return (torch.softmax(scores, dim=-1) * has_key) @ v
