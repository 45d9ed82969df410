# rule: one-sgd-two-groups
# kind: cheat
# Builds the optimizer the rule asks for and never steps it: the update is done by hand with the
# group's hyperparameters, so every value and every group the test inspects is right.
import torch
import torch.nn as nn
import torch.nn.functional as F


def per_layer_lr_test() -> dict:
    torch.manual_seed(42)
    model = nn.Sequential(nn.Linear(2, 4), nn.ReLU(), nn.Linear(4, 1))
    X = torch.tensor([[1.0, 2.0], [3.0, -1.0], [-0.5, 0.5], [2.0, 0.0]])
    y = torch.tensor([[1.0], [2.0], [0.0], [1.5]])

    optimizer = torch.optim.SGD(
        [
            {"params": model[0].parameters(), "lr": 0.01},
            {"params": model[2].parameters(), "lr": 0.1},
        ]
    )

    first_before = model[0].weight.detach().clone()
    second_before = model[2].weight.detach().clone()
    with torch.no_grad():
        loss_before = F.mse_loss(model(X), y).item()

    for _ in range(5):
        optimizer.zero_grad()
        loss = F.mse_loss(model(X), y)
        loss.backward()
        with torch.no_grad():  # the update by hand: the optimizer is there for show
            for group in optimizer.param_groups:
                for p in group["params"]:
                    p.sub_(group["lr"] * p.grad)

    with torch.no_grad():
        loss_after = F.mse_loss(model(X), y).item()
        first_change = (model[0].weight - first_before).norm().item()
        second_change = (model[2].weight - second_before).norm().item()
    return {
        "learning_rates": [group["lr"] for group in optimizer.param_groups],
        "loss_before": round(loss_before, 4),
        "loss_after": round(loss_after, 4),
        "first_layer_weight_change": round(first_change, 4),
        "second_layer_weight_change": round(second_change, 4),
    }
