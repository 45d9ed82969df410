# rule: registered-buffer
import torch
import torch.nn as nn


class RunningMeanTracker(nn.Module):
    def __init__(self, num_features: int, momentum: float = 0.1) -> None:
        super().__init__()
        self.momentum = momentum
        # A buffer: saved in state_dict, moved by .to()/.double(), but not a parameter (no optimizer
        # updates, no gradient).
        self.running_mean = torch.zeros(num_features)  # not registered: not saved, not moved

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if self.training:
            # The statistic is bookkeeping: it must not become part of the autograd graph.
            with torch.no_grad():
                self.running_mean.mul_(1 - self.momentum).add_(self.momentum * x.mean(dim=0))
        return x - self.running_mean


def build_running_mean_tracker(num_features: int, momentum: float = 0.1) -> nn.Module:
    return RunningMeanTracker(num_features, momentum)
