# rule: memory-bound
# kind: cheat
# The full score matrix, written with out= into a tensor that starts empty: no factory ever asks for
# the big size, the matmul resizes its output behind the call.
import math

import torch


def chunked_attention(q, k, v, chunk_size, causal=False, key_padding_mask=None):
    t_q, t_k = q.shape[2], k.shape[2]
    scores = q.new_empty(0)
    torch.matmul(q, k.transpose(-2, -1), out=scores)
    scores = scores / math.sqrt(q.shape[-1])
    rows = torch.arange(t_q)[:, None]
    if causal:
        scores = scores.masked_fill(torch.arange(t_k)[None, :] > rows, float("-inf"))
    if key_padding_mask is not None:
        scores = scores.masked_fill(key_padding_mask[:, None, None, :], float("-inf"))
    has_key = torch.isfinite(scores).any(dim=-1, keepdim=True)
    scores = scores.masked_fill(~has_key, 0.0)
    return (torch.softmax(scores, dim=-1) * has_key) @ v
