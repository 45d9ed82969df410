import torch


def stable_bce_with_logits(logits, targets, pos_weight=None, reduction="mean"):
    neg_log_sigmoid = torch.clamp(-logits, min=0) + torch.log1p(torch.exp(-logits.abs()))
    weight = torch.ones_like(targets) if pos_weight is None else 1 + (pos_weight - 1) * targets
    loss = (1 - targets) * logits + weight * neg_log_sigmoid
    if reduction == "mean":
        return loss.sum() / loss.shape[0]  # divides by the batch size, not the number of elements
    if reduction == "sum":
        return loss.sum()
    return loss
