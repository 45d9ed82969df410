import torch


def apply_rope(x: torch.Tensor, offset: int = 0, base: float = 10000.0) -> torch.Tensor:
    """Rotate query/key features of shape (B, H, T, D) by their positions offset, ..., offset + T - 1.

    Half-split pairs: feature i is paired with feature i + D/2 and rotated by the angle
    position * base ** (-2i / D). Returns a new tensor of x's shape and dtype; ValueError for odd D.
    """
    # TODO
    raise NotImplementedError("apply_rope is not implemented yet")
