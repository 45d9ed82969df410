# rule: no-functional-normalize
import torch
from torch.nn.functional import normalize  # bound at import: replacing F.normalize later misses it


def safe_row_normalize(x: torch.Tensor, eps: float = 1e-12) -> torch.Tensor:
    return normalize(x, dim=-1, eps=eps)
