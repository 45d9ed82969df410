import torch


def masked_attention(q, k, v, key_padding_mask, causal=False):
    t_q, t_k = q.shape[-2], k.shape[-2]
    scores = q @ k.transpose(-2, -1) / q.shape[-1]  # 1/D instead of 1/sqrt(D)
    allowed = ~key_padding_mask[:, None, None, :]
    if causal:
        allowed = allowed & torch.ones(t_q, t_k, dtype=torch.bool).tril()
    has_key = allowed.any(-1, keepdim=True)
    scores = scores.masked_fill(~allowed, float("-inf")).masked_fill(~has_key, 0.0)
    return (torch.softmax(scores, dim=-1) * has_key) @ v
