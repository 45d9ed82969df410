import torch


def stable_bce_with_logits(logits, targets, pos_weight=None, reduction="mean"):
    neg_log_sigmoid = torch.clamp(-logits, min=0) + torch.log1p(torch.exp(-logits.abs()))
    if pos_weight is None:
        weight = torch.ones_like(targets)
    else:
        weight = pos_weight.sub_(1).mul(targets).add(1)  # "saves a copy" by shifting pos_weight in place
    loss = (1 - targets) * logits + weight * neg_log_sigmoid
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    return loss
