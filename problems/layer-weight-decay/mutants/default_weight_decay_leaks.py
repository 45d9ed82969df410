import torch
import torch.nn as nn
import torch.nn.functional as F


def weight_decay_groups_test() -> dict:
    torch.manual_seed(42)
    model = nn.Sequential(nn.Linear(4, 8), nn.LayerNorm(8), nn.ReLU(), nn.Linear(8, 1))
    X = torch.randn(32, 4)
    y = torch.randn(32, 1)

    decay = [(n, p) for n, p in model.named_parameters() if p.ndim >= 2]
    no_decay = [(n, p) for n, p in model.named_parameters() if p.ndim < 2]
    # The no-decay group does not override weight_decay, so it inherits the default 0.1.
    optimizer = torch.optim.SGD(
        [{"params": [p for _, p in decay]}, {"params": [p for _, p in no_decay]}],
        lr=0.1,
        weight_decay=0.1,
    )
    losses = []
    for _ in range(20):
        optimizer.zero_grad()
        loss = F.mse_loss(model(X), y)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    return {
        "decay_params": [n for n, _ in decay],
        "no_decay_params": [n for n, _ in no_decay],
        "first_loss": round(losses[0], 4),
        "last_loss": round(losses[-1], 4),
        "decay_norm": round(sum(p.norm().item() for _, p in decay), 4),
        "no_decay_norm": round(sum(p.norm().item() for _, p in no_decay), 4),
    }
