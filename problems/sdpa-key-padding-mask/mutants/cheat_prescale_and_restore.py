# rule: inputs-not-modified
# kind: cheat
# Halves the caller's queries in place and doubles them back: bit for bit the same afterwards.
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
    q.mul_(0.5)
    scores = (2.0 * q @ k.transpose(-2, -1)) / math.sqrt(q.shape[-1])  # (B, H, Tq, Tk)
    q.mul_(2.0)
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
