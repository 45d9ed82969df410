# rule: no-builtin-attention
# kind: cheat
# The built-in attention below the Python API: the aten operator through torch.ops, fully masked
# rows zeroed afterwards.
import torch


def masked_attention(q, k, v, key_padding_mask, causal=False):
    t_q, t_k = q.shape[-2], k.shape[-2]
    allowed = ~key_padding_mask[:, None, None, :]
    if causal:
        allowed = allowed & torch.ones(t_q, t_k, dtype=torch.bool).tril()
    has_key = allowed.any(dim=-1, keepdim=True)
    out = torch.ops.aten.scaled_dot_product_attention(q, k, v, attn_mask=allowed | ~has_key)
    return out * has_key
