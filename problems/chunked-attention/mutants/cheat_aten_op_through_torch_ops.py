# rule: no-builtin-attention
# kind: cheat
# The built-in attention below the Python API: the aten operator through torch.ops, with the masks
# folded into one boolean mask and fully masked rows zeroed.
import torch


def chunked_attention(q, k, v, chunk_size, causal=False, key_padding_mask=None):
    t_q, t_k = q.shape[2], k.shape[2]
    allowed = torch.ones(q.shape[0], 1, t_q, t_k, dtype=torch.bool)
    if causal:
        allowed = allowed & torch.ones(t_q, t_k, dtype=torch.bool).tril()
    if key_padding_mask is not None:
        allowed = allowed & ~key_padding_mask[:, None, None, :]
    has_key = allowed.any(dim=-1, keepdim=True)
    out = torch.ops.aten.scaled_dot_product_attention(q, k, v, attn_mask=allowed | ~has_key)
    return out * has_key
