import torch


def pairwise_sq_dists(x, y):
    # Both norm vectors kept as columns: y's norms are added per ROW i instead of per column j.
    x_sq = (x * x).sum(1, keepdim=True)
    y_sq = (y * y).sum(1, keepdim=True)
    return (x_sq - 2.0 * (x @ y.T) + y_sq).clamp_min(0.0)
