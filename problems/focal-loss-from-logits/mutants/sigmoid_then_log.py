# rule: stable-from-logits
import torch
import torch.nn.functional as F


def focal_loss(
    logits: torch.Tensor,
    targets: torch.Tensor,
    alpha: float | None = 0.25,
    gamma: float = 2.0,
    reduction: str = "mean",
) -> torch.Tensor:
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"unknown reduction {reduction!r}")
    # log p_t and 1 - p_t straight from the logits: no probability is rounded to 0 or 1 first.
    p = torch.sigmoid(logits)
    pt = targets * p + (1 - targets) * (1 - p)
    log_pt = torch.log(pt)  # log(0) = -inf once the sigmoid saturates
    one_minus_pt = 1 - pt
    loss = -one_minus_pt.pow(gamma) * log_pt
    if alpha is not None:
        loss = (alpha * targets + (1 - alpha) * (1 - targets)) * loss
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    return loss
