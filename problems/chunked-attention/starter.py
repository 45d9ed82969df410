import math

import torch


def chunked_attention(
    q: torch.Tensor,
    k: torch.Tensor,
    v: torch.Tensor,
    chunk_size: int,
    causal: bool = False,
    key_padding_mask: torch.Tensor | None = None,
) -> torch.Tensor:
    """softmax(q k^T / sqrt(D)) v computed over key chunks with an online softmax.

    q: (B, H, Tq, D); k: (B, H, Tk, D); v: (B, H, Tk, Dv). Keys are processed chunk_size at a time;
    never build a (Tq, Tk) matrix. causal: query i sees keys j <= i. key_padding_mask: (B, Tk) bool,
    True = padding. A query with no allowed key outputs zeros.
    """
    # TODO: this materialises the whole score matrix
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    return torch.softmax(scores, dim=-1) @ v
