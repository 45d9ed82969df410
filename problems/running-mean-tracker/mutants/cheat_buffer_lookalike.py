# rule: registered-buffer
# kind: cheat
# A plain attribute dressed up: state_dict() is overridden to list it, so saving looks right, but it
# is not a buffer (no named_buffers(), .double() leaves it behind).
import torch
import torch.nn as nn


class RunningMeanTracker(nn.Module):
    def __init__(self, num_features, momentum=0.1):
        super().__init__()
        self.momentum = momentum
        self.running_mean = torch.zeros(num_features)

    def state_dict(self, *args, **kwargs):
        out = super().state_dict(*args, **kwargs)
        out["running_mean"] = self.running_mean
        return out

    def forward(self, x):
        if self.training:
            with torch.no_grad():
                self.running_mean.mul_(1 - self.momentum).add_(self.momentum * x.mean(dim=0))
        return x - self.running_mean


def build_running_mean_tracker(num_features, momentum=0.1):
    return RunningMeanTracker(num_features, momentum)
