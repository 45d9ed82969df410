# rule: no-builtin-attention
import torch


def masked_attention(q, k, v, key_padding_mask, causal=False):
    # the fused kernel under its operator name; fully padded rows are zeroed as asked
    t_q, t_k = q.shape[-2], k.shape[-2]
    allowed = ~key_padding_mask[:, None, None, :]
    if causal:
        allowed = allowed & torch.ones(t_q, t_k, dtype=torch.bool).tril()
    out = torch.ops.aten.scaled_dot_product_attention(q, k, v, attn_mask=allowed)
    return torch.nan_to_num(out) * allowed.any(dim=-1, keepdim=True)
