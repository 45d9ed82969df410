import torch


def padding_mask(lengths: torch.Tensor, max_len: int | None = None) -> torch.Tensor:
    """A boolean mask of shape (B, max_len): mask[b, t] is True when t < lengths[b].

    lengths is an int64 tensor of shape (B,). max_len defaults to the largest length
    (0 for an empty batch). Return a torch.bool tensor.
    """
    # TODO: compare a row of positions with a column of lengths
    raise NotImplementedError("padding_mask is not implemented yet")
