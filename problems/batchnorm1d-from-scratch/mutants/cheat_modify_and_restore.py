# rule: input-not-modified
# kind: cheat
import torch
import torch.nn as nn


class BatchNorm1d(nn.Module):
    def __init__(self, num_features: int, eps: float = 1e-5, momentum: float = 0.1) -> None:
        super().__init__()
        self.eps = eps
        self.momentum = momentum
        self.weight = nn.Parameter(torch.ones(num_features))
        self.bias = nn.Parameter(torch.zeros(num_features))
        # Same names, shapes and dtypes as nn.BatchNorm1d, so checkpoints load either way.
        self.register_buffer("running_mean", torch.zeros(num_features))
        self.register_buffer("running_var", torch.ones(num_features))
        self.register_buffer("num_batches_tracked", torch.tensor(0, dtype=torch.long))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        # Centres the caller's x in place to save a buffer, then adds the mean back: the values after
        # the call are those before (up to rounding the check does not see), but x was modified.
        if x.requires_grad:
            return self._forward(x)
        shift = x.mean(dim=0)
        with torch.no_grad():
            x.sub_(shift)
            out = self._forward(x + shift)
            x.add_(shift)
        return out

    def _forward(self, x: torch.Tensor) -> torch.Tensor:
        if self.training:
            mean = x.mean(dim=0)
            var = x.var(dim=0, unbiased=False)  # the batch's own spread: biased
            with torch.no_grad():
                n = x.shape[0]
                m = self.momentum
                # The running variance estimates the population's: unbiased (Bessel's correction).
                self.running_mean.mul_(1 - m).add_(m * mean)
                self.running_var.mul_(1 - m).add_(m * var * n / (n - 1))
                self.num_batches_tracked.add_(1)
        else:
            mean, var = self.running_mean, self.running_var
        x_hat = (x - mean) / torch.sqrt(var + self.eps)
        return x_hat * self.weight + self.bias


def build_batchnorm1d(num_features: int, eps: float = 1e-5, momentum: float = 0.1) -> nn.Module:
    return BatchNorm1d(num_features, eps, momentum)
