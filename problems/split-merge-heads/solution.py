import torch


def split_heads(x: torch.Tensor, num_heads: int) -> torch.Tensor:
    batch, time, dim = x.shape
    if dim % num_heads != 0:
        raise ValueError(f"model dim {dim} is not divisible by {num_heads} heads")
    # reshape (not view): a view when x's strides allow it, a copy only for non-contiguous x.
    return x.reshape(batch, time, num_heads, dim // num_heads).transpose(1, 2)


def merge_heads(x: torch.Tensor) -> torch.Tensor:
    batch, heads, time, head_dim = x.shape
    # After the transpose the heads are no longer adjacent in memory: reshape copies them back.
    return x.transpose(1, 2).reshape(batch, time, heads * head_dim)
