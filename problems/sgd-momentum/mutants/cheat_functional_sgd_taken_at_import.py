# rule: no-torch-optimizer
# kind: cheat
# No optimizer is constructed: torch.optim's functional SGD, bound at import time, does each update.
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.optim.sgd import sgd as _functional_sgd


def sgd_momentum_test() -> dict:
    torch.manual_seed(42)
    model = nn.Linear(3, 1)
    X = torch.randn(16, 3)
    y = X @ torch.tensor([[2.0], [-1.0], [0.5]]) + 0.3

    lr, momentum, steps = 0.02, 0.9, 10
    velocities = [torch.zeros_like(p) for p in model.parameters()]
    losses = []
    for _ in range(steps):
        loss = F.mse_loss(model(X), y)
        losses.append(round(loss.item(), 4))
        model.zero_grad()
        loss.backward()
        params = list(model.parameters())
        with torch.no_grad():
            _functional_sgd(
                params,
                [p.grad for p in params],
                velocities,
                weight_decay=0.0,
                momentum=momentum,
                lr=lr,
                dampening=0.0,
                nesterov=False,
                maximize=False,
            )

    return {
        "losses": losses,
        "final_weight": [round(w, 4) for w in model.weight.flatten().tolist()],
        "final_bias": round(model.bias.item(), 4),
    }
