# rule: step-touches-only-params-and-state
# kind: cheat
# Writes every gradient through `.data` (a version counter of its own) and back: bit for bit
# the same afterwards, and no counter of the caller's tensors moved.
from collections.abc import Callable, Iterable

import torch
import torch.nn as nn
import torch.nn.functional as F


class CustomSGD(torch.optim.Optimizer):
    """SGD with optional (heavy-ball) momentum and L2 weight decay."""

    def __init__(
        self,
        params: Iterable,
        lr: float = 0.01,
        momentum: float = 0.0,
        weight_decay: float = 0.0,
    ) -> None:
        if lr < 0.0:
            raise ValueError(f"invalid learning rate: {lr}")
        if momentum < 0.0:
            raise ValueError(f"invalid momentum: {momentum}")
        if weight_decay < 0.0:
            raise ValueError(f"invalid weight_decay: {weight_decay}")
        defaults = {"lr": lr, "momentum": momentum, "weight_decay": weight_decay}
        super().__init__(params, defaults)

    @torch.no_grad()
    def step(self, closure: Callable[[], torch.Tensor] | None = None) -> torch.Tensor | None:
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is not None:
                    p.grad.data.mul_(2.0)
                    p.grad.data.mul_(0.5)
        loss = None
        if closure is not None:
            with torch.enable_grad():
                loss = closure()

        for group in self.param_groups:
            lr = group["lr"]
            momentum = group["momentum"]
            weight_decay = group["weight_decay"]
            for p in group["params"]:
                if p.grad is None:
                    continue
                d_p = p.grad
                if weight_decay != 0:
                    d_p = d_p.add(p, alpha=weight_decay)
                if momentum != 0:
                    state = self.state[p]
                    if "momentum_buffer" not in state:
                        buf = d_p.clone()
                        state["momentum_buffer"] = buf
                    else:
                        buf = state["momentum_buffer"]
                        buf.mul_(momentum).add_(d_p)
                    d_p = buf
                p.add_(d_p, alpha=-lr)
        return loss


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
