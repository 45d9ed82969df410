import math

import torch


def masked_attention(q, k, v, key_padding_mask, causal=False):
    t_q, t_k = q.shape[-2], k.shape[-2]
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    allowed = ~key_padding_mask[:, None, None, :]
    if causal:
        allowed = allowed & torch.ones(t_q, t_k, dtype=torch.bool).tril()
    bias = torch.zeros(allowed.shape, dtype=q.dtype).masked_fill(~allowed, float("-inf"))
    # Forward is right (zeros), but the NaN of the softmax's backward flows through the addition
    # into the gradients of q and k.
    weights = torch.nan_to_num(torch.softmax(scores + bias, dim=-1), nan=0.0)
    return weights @ v
