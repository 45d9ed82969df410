# rule: inputs-not-modified
import math

import torch


def masked_attention(
    q: torch.Tensor,
    k: torch.Tensor,
    v: torch.Tensor,
    key_padding_mask: torch.Tensor,
    causal: bool = False,
) -> torch.Tensor:
    t_q, t_k = q.shape[-2], k.shape[-2]
    q = q.div_(math.sqrt(q.shape[-1]))  # scales the caller's queries in place
    scores = q @ k.transpose(-2, -1)
    allowed = ~key_padding_mask[:, None, None, :]  # True = padding, so a key is allowed where False
    if causal:
        allowed = allowed & torch.ones(t_q, t_k, dtype=torch.bool, device=q.device).tril()
    has_key = allowed.any(dim=-1, keepdim=True)  # rows that can attend to at least one key
    scores = scores.masked_fill(~allowed, float("-inf"))
    # A row of only -inf would give softmax 0/0 = NaN (and NaN gradients): make it finite first,
    # then zero its weights, so a query with nothing to attend to outputs zeros.
    scores = scores.masked_fill(~has_key, 0.0)
    weights = torch.softmax(scores, dim=-1) * has_key
    return weights @ v
