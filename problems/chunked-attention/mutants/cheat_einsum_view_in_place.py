# rule: memory-bound
# kind: cheat
# Forms the whole (Tq, Tk) score matrix with torch.einsum, which returns a view of its internal
# product, and works on it in place: no torch call returned a full-size tensor that is not a view.
import math

import torch


def chunked_attention(q, k, v, chunk_size, causal=False, key_padding_mask=None):
    # The full (Tq, Tk) score matrix, as einsum's view of a buffer no torch call returned, then
    # worked on in place: every full-size tensor is that view.
    t_q, t_k = q.shape[2], k.shape[2]
    s = torch.einsum("bhqd,bhkd->bhqk", q, k)
    s.mul_(1.0 / math.sqrt(q.shape[-1]))
    if causal:
        s.tril_()  # zeroes the future: its exp is cleared below
    if key_padding_mask is not None:
        s.masked_fill_(key_padding_mask[:, None, None, :], 0.0)
    s.sub_(s.amax(dim=-1, keepdim=True))
    s.exp_()
    if causal:
        s.tril_()
    if key_padding_mask is not None:
        s.masked_fill_(key_padding_mask[:, None, None, :], 0.0)
    den = s.sum(dim=-1, keepdim=True)
    s.div_(torch.where(den > 0, den, torch.ones_like(den)))
    return torch.einsum("bhqk,bhkd->bhqd", s, v)
