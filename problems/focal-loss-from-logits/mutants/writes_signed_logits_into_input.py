# rule: inputs-not-modified
# Right values, but the signed logits are written into the caller's `logits`.
import torch
import torch.nn.functional as F


def focal_loss(logits, targets, alpha=0.25, gamma=2.0, reduction="mean"):
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"unknown reduction {reduction!r}")
    signed = logits.mul_(2 * targets - 1)
    loss = -torch.exp(gamma * F.logsigmoid(-signed)) * F.logsigmoid(signed)
    if alpha is not None:
        loss = (alpha * targets + (1 - alpha) * (1 - targets)) * loss
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    return loss
