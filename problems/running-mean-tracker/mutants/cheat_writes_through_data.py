# rule: input-not-modified
# kind: cheat
# Writes the caller's x through `.data` (a version counter of its own) and back: bit for bit
# the same afterwards, and no counter of the caller's tensors moved.
import torch
import torch.nn as nn


class RunningMeanTracker(nn.Module):
    def __init__(self, num_features: int, momentum: float = 0.1) -> None:
        super().__init__()
        self.momentum = momentum
        # A buffer: saved in state_dict, moved by .to()/.double(), but not a parameter (no optimizer
        # updates, no gradient).
        self.register_buffer("running_mean", torch.zeros(num_features))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x.data.mul_(2.0)
        x.data.mul_(0.5)
        if self.training:
            # The statistic is bookkeeping: it must not become part of the autograd graph.
            with torch.no_grad():
                self.running_mean.mul_(1 - self.momentum).add_(self.momentum * x.mean(dim=0))
        return x - self.running_mean


def build_running_mean_tracker(num_features: int, momentum: float = 0.1) -> nn.Module:
    return RunningMeanTracker(num_features, momentum)
