import torch


def tile_view(x, n):
    return torch.stack([x] * n)  # stack always allocates a new tensor
