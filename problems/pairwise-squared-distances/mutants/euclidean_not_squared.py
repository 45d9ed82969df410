import torch


def pairwise_sq_dists(x, y):
    return (x[:, None, :] - y[None, :, :]).pow(2).sum(-1).sqrt()  # the distance, not its square
