# rule: no-builtin-bce
# kind: cheat
# With y = 2t - 1, soft margin loss is exactly the per-element binary cross-entropy with logits.
import torch
import torch.nn.functional as F


def stable_bce_with_logits(logits, targets, pos_weight=None, reduction="mean"):
    weight = torch.ones_like(targets) if pos_weight is None else 1 + (pos_weight - 1) * targets
    loss = weight * F.soft_margin_loss(logits, 2 * targets - 1, reduction="none")
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    if reduction == "none":
        return loss
    raise ValueError(f"unknown reduction {reduction!r}")
