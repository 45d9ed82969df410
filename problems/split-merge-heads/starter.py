import torch


def split_heads(x: torch.Tensor, num_heads: int) -> torch.Tensor:
    """(B, T, D) -> (B, H, T, D/H): head h holds features h*D/H ... (h+1)*D/H - 1 of every token.

    Raises ValueError when D is not divisible by num_heads. Returns a view when x is contiguous.
    """
    # TODO
    raise NotImplementedError("split_heads is not implemented yet")


def merge_heads(x: torch.Tensor) -> torch.Tensor:
    """(B, H, T, Dh) -> (B, T, H*Dh), the inverse of split_heads."""
    # TODO
    raise NotImplementedError("merge_heads is not implemented yet")
