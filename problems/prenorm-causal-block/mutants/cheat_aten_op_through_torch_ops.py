# rule: no-builtin-attention
# kind: cheat
# The built-in attention below the Python API: the aten operator through torch.ops.
import math

import torch
import torch.nn.functional as F


def prenorm_block(x: torch.Tensor, weights: dict, num_heads: int) -> torch.Tensor:
    batch, time, dim = x.shape
    head_dim = dim // num_heads
    w = weights

    # 1. Causal multi-head self-attention on the normalised input, added to the raw input.
    h = F.layer_norm(x, (dim,), w["ln1_weight"], w["ln1_bias"], eps=1e-5)
    qkv = F.linear(h, w["qkv_weight"], w["qkv_bias"])  # (B, T, 3D): [q | k | v]
    q, k, v = (t.reshape(batch, time, num_heads, head_dim).transpose(1, 2) for t in qkv.split(dim, dim=-1))
    attn = torch.ops.aten.scaled_dot_product_attention(q, k, v, is_causal=True)
    attn = attn.transpose(1, 2).reshape(batch, time, dim)
    x = x + F.linear(attn, w["out_weight"], w["out_bias"])

    # 2. MLP on the normalised result, added to it.
    h = F.layer_norm(x, (dim,), w["ln2_weight"], w["ln2_bias"], eps=1e-5)
    h = F.linear(F.gelu(F.linear(h, w["fc1_weight"], w["fc1_bias"])), w["fc2_weight"], w["fc2_bias"])
    return x + h
