# rule: finite-for-any-logit
# kind: cheat
# Finite by construction: the logits are clamped to +-80 before the textbook formula, so nothing
# overflows, but the loss of a confident mistake stops growing at 80.
import torch


def stable_bce_with_logits(logits, targets, pos_weight=None, reduction="mean"):
    x = logits.clamp(-80.0, 80.0)
    weight = torch.ones_like(targets) if pos_weight is None else 1 + (pos_weight - 1) * targets
    loss = (1 - targets) * x + weight * torch.log1p(torch.exp(-x))
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    if reduction == "none":
        return loss
    raise ValueError(f"unknown reduction {reduction!r}")
