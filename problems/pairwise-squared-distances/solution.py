import torch


def pairwise_sq_dists(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    # Expanded form: no (n, m, d) intermediate, and the cross term is one matrix multiply.
    x_sq = (x * x).sum(dim=1, keepdim=True)  # (n, 1)
    y_sq = (y * y).sum(dim=1)  # (m,) -> broadcasts as a row
    d2 = x_sq - 2.0 * (x @ y.T) + y_sq
    # Rounding in the subtraction can leave tiny negatives where the true distance is 0.
    return d2.clamp_min(0.0)
