# rule: one-sgd-two-groups
# kind: cheat
# One group at lr 0.1 for everything; the first layer's gradients are scaled by 0.1 before each step,
# which moves it exactly as lr 0.01 would.
import torch
import torch.nn as nn
import torch.nn.functional as F


def per_layer_lr_test() -> dict:
    torch.manual_seed(42)
    model = nn.Sequential(nn.Linear(2, 4), nn.ReLU(), nn.Linear(4, 1))
    X = torch.tensor([[1.0, 2.0], [3.0, -1.0], [-0.5, 0.5], [2.0, 0.0]])
    y = torch.tensor([[1.0], [2.0], [0.0], [1.5]])

    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)

    first_before = model[0].weight.detach().clone()
    second_before = model[2].weight.detach().clone()
    with torch.no_grad():
        loss_before = F.mse_loss(model(X), y).item()

    for _ in range(5):
        optimizer.zero_grad()
        loss = F.mse_loss(model(X), y)
        loss.backward()
        for p in model[0].parameters():
            p.grad.mul_(0.1)
        optimizer.step()

    with torch.no_grad():
        loss_after = F.mse_loss(model(X), y).item()
        first_change = (model[0].weight - first_before).norm().item()
        second_change = (model[2].weight - second_before).norm().item()
    return {
        "learning_rates": [0.01, 0.1],
        "loss_before": round(loss_before, 4),
        "loss_after": round(loss_after, 4),
        "first_layer_weight_change": round(first_change, 4),
        "second_layer_weight_change": round(second_change, 4),
    }
