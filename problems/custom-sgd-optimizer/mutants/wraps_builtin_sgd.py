# rule: no-builtin-sgd
# An Optimizer subclass in name only: every step is torch.optim.SGD's.
from collections.abc import Callable, Iterable

import torch
import torch.nn as nn
import torch.nn.functional as F


class CustomSGD(torch.optim.Optimizer):
    def __init__(self, params: Iterable, lr: float = 0.01, momentum: float = 0.0, weight_decay: float = 0.0):
        super().__init__(params, {"lr": lr, "momentum": momentum, "weight_decay": weight_decay})
        self._inner = torch.optim.SGD(self.param_groups, lr=lr, momentum=momentum, weight_decay=weight_decay)
        self.state = self._inner.state

    def step(self, closure: Callable[[], torch.Tensor] | None = None):
        return self._inner.step(closure)


def custom_sgd_test() -> dict:
    torch.manual_seed(42)
    model = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 1))
    X = torch.randn(32, 4)
    y = torch.randn(32, 1)

    optimizer = CustomSGD(model.parameters(), lr=0.1, momentum=0.9, weight_decay=0.01)
    losses = []
    for _ in range(15):
        optimizer.zero_grad()
        loss = F.mse_loss(model(X), y)
        loss.backward()
        optimizer.step()
        losses.append(round(loss.item(), 4))

    with torch.no_grad():
        final_loss = F.mse_loss(model(X), y).item()
    return {"losses": losses, "final_loss": round(final_loss, 4)}
