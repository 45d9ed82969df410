# rule: stable-from-logits
# kind: cheat
# Finite by construction: the probability is clamped away from 0 and 1 before the log. No inf or nan
# anywhere, but the loss of a confident mistake is capped (about 16) instead of growing with the logit.
import torch


def focal_loss(logits, targets, alpha=0.25, gamma=2.0, reduction="mean"):
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"unknown reduction {reduction!r}")
    p = torch.sigmoid(logits).clamp(1e-7, 1 - 1e-7)
    pt = targets * p + (1 - targets) * (1 - p)
    loss = -(1 - pt).pow(gamma) * pt.log()
    if alpha is not None:
        loss = (alpha * targets + (1 - alpha) * (1 - targets)) * loss
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    return loss
