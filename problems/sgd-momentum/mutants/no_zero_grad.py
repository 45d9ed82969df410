import torch
import torch.nn as nn
import torch.nn.functional as F


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
        # gradients are never cleared, so they accumulate across steps
        loss.backward()
        with torch.no_grad():
            for p, v in zip(model.parameters(), velocities, strict=True):
                v.mul_(momentum).add_(p.grad)  # v <- momentum * v + g
                p.sub_(lr * v)  # p <- p - lr * v

    return {
        "losses": losses,
        "final_weight": [round(w, 4) for w in model.weight.flatten().tolist()],
        "final_bias": round(model.bias.item(), 4),
    }
