import torch


def per_channel_affine(x: torch.Tensor, scale: torch.Tensor, shift: torch.Tensor) -> torch.Tensor:
    """Apply y = x * scale + shift channel by channel.

    x has shape (N, C, *trailing) with any number (zero or more) of trailing dimensions;
    scale and shift have shape (C,). Return a new tensor of the same shape and dtype as x;
    do not modify x.
    """
    # TODO: reshape scale and shift so that they broadcast along dimension 1
    raise NotImplementedError("per_channel_affine is not implemented yet")
