import torch


def tile_view(x: torch.Tensor, n: int) -> torch.Tensor:
    # expand adds a leading dimension of size n with stride 0: every index along it reads x itself.
    # x's own strides and storage offset are kept, so non-contiguous inputs are not copied either.
    return x.expand(n, *x.shape)
