# rule: no-builtin-attention
import torch
import torch.nn.functional as F


def masked_attention(q, k, v, key_padding_mask, causal=False):
    t_q, t_k = q.shape[-2], k.shape[-2]
    allowed = ~key_padding_mask[:, None, None, :]
    if causal:
        allowed = allowed & torch.ones(t_q, t_k, dtype=torch.bool).tril()
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=allowed)
    return torch.nan_to_num(out) * allowed.any(-1, keepdim=True)
