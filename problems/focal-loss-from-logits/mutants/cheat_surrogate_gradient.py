# rule: differentiable
# kind: cheat
# The right value, computed without a graph, with a plain cross-entropy's graph grafted on:
# value.detach() + (surrogate - surrogate.detach()). Its value is exact; its gradient is BCE's.
import torch
import torch.nn.functional as F


def _focal(logits, targets, alpha, gamma):
    signed = (2 * targets - 1) * logits
    loss = -torch.exp(gamma * F.logsigmoid(-signed)) * F.logsigmoid(signed)
    if alpha is not None:
        loss = (alpha * targets + (1 - alpha) * (1 - targets)) * loss
    return loss


def focal_loss(logits, targets, alpha=0.25, gamma=2.0, reduction="mean"):
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"unknown reduction {reduction!r}")
    with torch.no_grad():
        value = _focal(logits, targets, alpha, gamma)
    surrogate = F.binary_cross_entropy_with_logits(logits, targets, reduction="none")
    loss = value + (surrogate - surrogate.detach())
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    return loss
