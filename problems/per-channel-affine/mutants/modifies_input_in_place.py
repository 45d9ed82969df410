# rule: input-not-modified
import torch


def per_channel_affine(x: torch.Tensor, scale: torch.Tensor, shift: torch.Tensor) -> torch.Tensor:
    shape = (1, x.shape[1]) + (1,) * (x.dim() - 2)
    return x.mul_(scale.view(shape)).add_(shift.view(shape))  # overwrites the caller's tensor
