import torch


def compact_rows(x: torch.Tensor, mask: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Keep the rows of x where mask is True, in order, and return their original indices.

    x: (n, *rest); mask: bool (n,). Returns (rows, indices): rows of shape (k, *rest) with
    x's dtype and indices an int64 tensor of shape (k,), k = number of True values (possibly 0).
    """
    # TODO: boolean indexing for the rows, nonzero for the indices
    raise NotImplementedError("compact_rows is not implemented yet")
