import torch
import torch.nn as nn
import torch.nn.functional as F


def freeze_backbone_test() -> dict:
    """Freeze the backbone, train only the head for 10 steps, and report what changed.

    Returns a dict with keys 'trainable_params', 'frozen_params', 'backbone_changed',
    'head_changed' and 'losses'.
    """
    # TODO: set requires_grad=False on every backbone parameter, give only the trainable
    # parameters to the optimizer, train, and compare parameters before/after.
    return {}
