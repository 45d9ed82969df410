import torch
import torch.nn as nn
import torch.nn.functional as F


def weight_decay_groups_test() -> dict:
    """Train with weight decay on the Linear weights only (biases and LayerNorm are not decayed).

    Returns a dict with keys 'decay_params', 'no_decay_params', 'first_loss', 'last_loss',
    'decay_norm' and 'no_decay_norm'.
    """
    # TODO: split model.named_parameters() into two param groups and train for 20 steps with SGD
    return {}
