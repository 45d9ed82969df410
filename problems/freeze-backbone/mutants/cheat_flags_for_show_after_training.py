# rule: freeze-by-requires-grad
# kind: cheat
# Keeps the backbone out of training with no_grad() and clears its requires_grad flags only once
# training is over, for the counts the test reads at the end.
import torch
import torch.nn as nn
import torch.nn.functional as F


def freeze_backbone_test() -> dict:
    torch.manual_seed(42)
    backbone = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 8), nn.ReLU())
    head = nn.Linear(8, 3)
    model = nn.Sequential(backbone, head)
    X = torch.randn(24, 4)
    labels = torch.randint(0, 3, (24,))

    backbone_before = [p.detach().clone() for p in backbone.parameters()]
    head_before = [p.detach().clone() for p in head.parameters()]

    optimizer = torch.optim.SGD(head.parameters(), lr=0.1, momentum=0.9)
    losses = []
    for _ in range(10):
        optimizer.zero_grad()
        with torch.no_grad():
            features = backbone(X)
        loss = F.cross_entropy(head(features), labels)
        loss.backward()
        optimizer.step()
        losses.append(round(loss.item(), 4))

    for p in backbone.parameters():  # for show, once training is over
        p.requires_grad_(False)
    trainable = sum(p.numel() for p in model.parameters() if p.requires_grad)
    frozen = sum(p.numel() for p in model.parameters() if not p.requires_grad)
    backbone_changed = any(
        not torch.equal(a, b) for a, b in zip(backbone_before, backbone.parameters(), strict=True)
    )
    head_changed = any(not torch.equal(a, b) for a, b in zip(head_before, head.parameters(), strict=True))
    return {
        "trainable_params": trainable,
        "frozen_params": frozen,
        "backbone_changed": backbone_changed,
        "head_changed": head_changed,
        "losses": losses,
    }
