import torch


def tile_view(x, n):
    # The copies are laid along a new LAST dimension: shape (*x.shape, n) instead of (n, *x.shape).
    return x.unsqueeze(-1).expand(*x.shape, n)
