import torch


def stable_bce_with_logits(logits, targets, pos_weight=None, reduction="mean"):
    loss = torch.clamp(logits, min=0) - logits * targets + torch.log1p(torch.exp(-logits.abs()))
    if pos_weight is not None:
        loss = loss * pos_weight  # weights the negative examples' term as well
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    return loss
