import torch


def per_channel_affine(x: torch.Tensor, scale: torch.Tensor, shift: torch.Tensor) -> torch.Tensor:
    shape = (1, x.shape[1]) + (1,) * (x.dim() - 2)
    return (x + shift.view(shape)) * scale.view(shape)  # (x + b) * s is not x * s + b
