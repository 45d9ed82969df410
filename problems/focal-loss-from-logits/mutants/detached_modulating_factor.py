# rule: differentiable
import torch.nn.functional as F


def focal_loss(logits, targets, alpha=0.25, gamma=2.0, reduction="mean"):
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"unknown reduction {reduction!r}")
    log_pt = targets * F.logsigmoid(logits) + (1 - targets) * F.logsigmoid(-logits)
    pt = log_pt.exp()
    # the modulating factor treated as a constant weight: right values, wrong gradient
    loss = -(1 - pt).detach().pow(gamma) * log_pt
    if alpha is not None:
        loss = (alpha * targets + (1 - alpha) * (1 - targets)) * loss
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    return loss
