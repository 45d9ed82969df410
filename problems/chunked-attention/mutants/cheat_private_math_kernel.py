# rule: no-builtin-attention
# kind: cheat
# The math kernel behind scaled_dot_product_attention, called by its private aten name.
import torch


def chunked_attention(q, k, v, chunk_size, causal=False, key_padding_mask=None):
    mask = None
    if key_padding_mask is not None:
        mask = ~key_padding_mask[:, None, None, :]
    if causal:
        t_q, t_k = q.shape[2], k.shape[2]
        tri = torch.ones(t_q, t_k, dtype=torch.bool).tril()
        mask = tri if mask is None else mask & tri
    out = torch.ops.aten._scaled_dot_product_attention_math(q, k, v, attn_mask=mask)[0]
    return torch.nan_to_num(out)
