import torch


def compact_rows(x: torch.Tensor, mask: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    # as_tuple=True gives one (k,) index vector per dimension of mask: exactly (k,), even for k = 0 or 1.
    (indices,) = torch.nonzero(mask, as_tuple=True)
    return x[indices], indices
