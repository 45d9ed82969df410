# rule: one-sgd-decay-groups
# kind: cheat
# Builds the optimizer the rule asks for and never steps it: the update is done by hand with the
# group's hyperparameters, so every value and every group the test inspects is right.
import torch
import torch.nn as nn
import torch.nn.functional as F


def weight_decay_groups_test() -> dict:
    torch.manual_seed(42)
    model = nn.Sequential(nn.Linear(4, 8), nn.LayerNorm(8), nn.ReLU(), nn.Linear(8, 1))
    X = torch.randn(32, 4)
    y = torch.randn(32, 1)

    decay, no_decay = [], []
    decay_names, no_decay_names = [], []
    for name, param in model.named_parameters():
        if param.ndim >= 2:
            decay.append(param)
            decay_names.append(name)
        else:
            no_decay.append(param)
            no_decay_names.append(name)

    optimizer = torch.optim.SGD(
        [
            {"params": decay, "weight_decay": 0.1},
            {"params": no_decay, "weight_decay": 0.0},
        ],
        lr=0.1,
    )

    losses = []
    for _ in range(20):
        optimizer.zero_grad()
        loss = F.mse_loss(model(X), y)
        loss.backward()
        with torch.no_grad():  # the update by hand: the optimizer is there for show
            for group in optimizer.param_groups:
                for p in group["params"]:
                    p.sub_(group["lr"] * (p.grad + group["weight_decay"] * p))
        losses.append(loss.item())

    with torch.no_grad():
        decay_norm = sum(p.norm().item() for p in decay)
        no_decay_norm = sum(p.norm().item() for p in no_decay)
    return {
        "decay_params": decay_names,
        "no_decay_params": no_decay_names,
        "first_loss": round(losses[0], 4),
        "last_loss": round(losses[-1], 4),
        "decay_norm": round(decay_norm, 4),
        "no_decay_norm": round(no_decay_norm, 4),
    }
