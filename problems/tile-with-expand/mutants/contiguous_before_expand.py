import torch


def tile_view(x, n):
    # Making x contiguous first copies it whenever x is a transposed or sliced view.
    return x.contiguous().expand(n, *x.shape)
