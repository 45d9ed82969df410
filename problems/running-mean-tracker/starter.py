import torch
import torch.nn as nn


class RunningMeanTracker(nn.Module):
    """Keeps an exponential running mean of its inputs' features in a buffer named running_mean.

    Train mode: running_mean <- (1 - momentum) * running_mean + momentum * x.mean(dim=0).
    Eval mode: running_mean is left alone. Both modes return x - running_mean.
    """

    def __init__(self, num_features: int, momentum: float = 0.1) -> None:
        super().__init__()
        self.momentum = momentum
        # TODO: running_mean, zeros of shape (num_features,), saved in state_dict, not a parameter

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        raise NotImplementedError("RunningMeanTracker.forward is not implemented yet")


def build_running_mean_tracker(num_features: int, momentum: float = 0.1) -> nn.Module:
    return RunningMeanTracker(num_features, momentum)
