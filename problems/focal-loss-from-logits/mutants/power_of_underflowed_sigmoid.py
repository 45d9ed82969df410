# rule: stable-from-logits
# The previous hint's route: (1 - p_t) ** gamma of a sigmoid that underflows to 0. The loss is right
# everywhere, but with gamma < 1 its gradient there is 0 * inf = nan.
import torch
import torch.nn.functional as F


def focal_loss(logits, targets, alpha=0.25, gamma=2.0, reduction="mean"):
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"unknown reduction {reduction!r}")
    log_pt = targets * F.logsigmoid(logits) + (1 - targets) * F.logsigmoid(-logits)
    one_minus_pt = targets * torch.sigmoid(-logits) + (1 - targets) * torch.sigmoid(logits)
    loss = -one_minus_pt.pow(gamma) * log_pt
    if alpha is not None:
        loss = (alpha * targets + (1 - alpha) * (1 - targets)) * loss
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    return loss
