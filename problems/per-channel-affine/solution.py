import torch


def per_channel_affine(x: torch.Tensor, scale: torch.Tensor, shift: torch.Tensor) -> torch.Tensor:
    # (C,) -> (1, C, 1, ..., 1): size C lines up with dimension 1, every other dimension broadcasts.
    shape = (1, x.shape[1]) + (1,) * (x.dim() - 2)
    return x * scale.view(shape) + shift.view(shape)
