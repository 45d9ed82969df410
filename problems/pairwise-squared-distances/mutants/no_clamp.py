import torch


def pairwise_sq_dists(x, y):
    # The expansion without clamping: identical points can come out slightly negative.
    return (x * x).sum(1, keepdim=True) - 2.0 * (x @ y.T) + (y * y).sum(1)
