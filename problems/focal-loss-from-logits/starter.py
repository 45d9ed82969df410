import torch
import torch.nn.functional as F


def focal_loss(
    logits: torch.Tensor,
    targets: torch.Tensor,
    alpha: float | None = 0.25,
    gamma: float = 2.0,
    reduction: str = "mean",
) -> torch.Tensor:
    """Binary focal loss from raw logits: -alpha_t * (1 - p_t)**gamma * log(p_t), elementwise.

    targets holds 0.0/1.0 and has the shape of logits. alpha=None means no class weighting.
    reduction is "mean" (over all elements), "sum" or "none". Must stay finite for huge logits.
    """
    # TODO
    raise NotImplementedError("focal_loss is not implemented yet")
