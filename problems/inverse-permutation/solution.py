import torch


def inverse_permutation(perm: torch.Tensor) -> torch.Tensor:
    n = perm.shape[-1]
    positions = torch.arange(n, dtype=perm.dtype, device=perm.device).expand_as(perm)
    # inv[..., perm[..., i]] = i: write each position at the place it was sent to.
    return torch.empty_like(perm).scatter_(-1, perm, positions)
