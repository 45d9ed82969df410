import torch


def safe_row_normalize(x: torch.Tensor, eps: float = 1e-12) -> torch.Tensor:
    # norm + eps is a different (also common) rule: it never gives exactly unit rows.
    return x / (x.norm(dim=-1, keepdim=True) + eps)
