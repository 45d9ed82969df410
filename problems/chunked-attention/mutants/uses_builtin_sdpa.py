# rule: no-builtin-attention
import torch
import torch.nn.functional as F


def chunked_attention(q, k, v, chunk_size, causal=False, key_padding_mask=None):
    allowed = torch.ones(q.shape[2], k.shape[2], dtype=torch.bool)
    if causal:
        allowed = allowed.tril()
    allowed = allowed[None, None]
    if key_padding_mask is not None:
        allowed = allowed & ~key_padding_mask[:, None, None, :]
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=allowed)
    return torch.nan_to_num(out) * allowed.any(-1, keepdim=True)
