import torch
import torch.nn as nn


class BatchNorm1d(nn.Module):
    """Batch normalisation for (N, C) inputs, written without F.batch_norm / nn.BatchNorm1d.

    Parameters: weight (ones), bias (zeros). Buffers: running_mean (zeros), running_var (ones),
    num_batches_tracked (a 0-d long tensor, 0).
    Train: normalise with the batch mean and biased variance; update the running mean and the
    running *unbiased* variance with momentum; num_batches_tracked += 1.
    Eval: normalise with the running statistics.
    Output: weight * (x - mean) / sqrt(var + eps) + bias.
    """

    def __init__(self, num_features: int, eps: float = 1e-5, momentum: float = 0.1) -> None:
        super().__init__()
        self.eps = eps
        self.momentum = momentum
        # TODO: parameters and buffers

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        raise NotImplementedError("BatchNorm1d.forward is not implemented yet")


def build_batchnorm1d(num_features: int, eps: float = 1e-5, momentum: float = 0.1) -> nn.Module:
    return BatchNorm1d(num_features, eps, momentum)
