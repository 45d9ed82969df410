import torch


def pairwise_sq_dists(x, y):
    # New axes swapped: (1, n, d) - (m, 1, d) gives the (m, n) transposed matrix.
    return (x[None, :, :] - y[:, None, :]).pow(2).sum(-1)
