import torch


def safe_row_normalize(x: torch.Tensor, eps: float = 1e-12) -> torch.Tensor:
    # keepdim=True leaves a (..., 1) column that broadcasts over each row's d entries.
    norms = torch.linalg.vector_norm(x, dim=-1, keepdim=True)
    return x / norms.clamp_min(eps)
