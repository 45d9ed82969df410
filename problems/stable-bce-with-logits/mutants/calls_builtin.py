# rule: no-builtin-bce
import torch.nn.functional as F


def stable_bce_with_logits(logits, targets, pos_weight=None, reduction="mean"):
    return F.binary_cross_entropy_with_logits(logits, targets, pos_weight=pos_weight, reduction=reduction)
