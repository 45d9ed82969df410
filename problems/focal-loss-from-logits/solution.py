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
    # Everything from the signed logit: log p_t and log(1 - p_t) are exact for any logit, and
    # (1 - p_t)^gamma as exp(gamma * log(1 - p_t)) keeps a finite gradient where 1 - p_t underflows.
    signed = (2 * targets - 1) * logits
    log_pt = F.logsigmoid(signed)
    factor = torch.exp(gamma * F.logsigmoid(-signed))
    loss = -factor * log_pt
    if alpha is not None:
        loss = (alpha * targets + (1 - alpha) * (1 - targets)) * loss
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    return loss
