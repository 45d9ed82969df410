import torch


def stable_bce_with_logits(
    logits: torch.Tensor,
    targets: torch.Tensor,
    pos_weight: torch.Tensor | None = None,
    reduction: str = "mean",
) -> torch.Tensor:
    """Binary cross-entropy of sigmoid(logits) against targets, computed without overflow.

    pos_weight (shape (C,), optional) weights the positive term of each class (last dim).
    reduction: "mean" (over all elements), "sum" or "none".
    F.binary_cross_entropy_with_logits is not allowed.
    """
    # TODO: this is the textbook formula; it returns inf/nan for large |logits|
    p = torch.sigmoid(logits)
    loss = -(targets * torch.log(p) + (1 - targets) * torch.log(1 - p))
    return loss.mean()
