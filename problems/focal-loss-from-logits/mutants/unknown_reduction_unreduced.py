import torch
import torch.nn.functional as F


def focal_loss(logits, targets, alpha=0.25, gamma=2.0, reduction="mean"):
    log_pt = targets * F.logsigmoid(logits) + (1 - targets) * F.logsigmoid(-logits)
    one_minus_pt = targets * torch.sigmoid(-logits) + (1 - targets) * torch.sigmoid(logits)
    loss = -one_minus_pt.pow(gamma) * log_pt
    if alpha is not None:
        loss = (alpha * targets + (1 - alpha) * (1 - targets)) * loss
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    return loss  # any other string silently means "none"
