import torch
import torch.nn as nn
import torch.nn.functional as F


def per_layer_lr_test() -> dict:
    """Train with learning rate 0.01 for the first Linear layer and 0.1 for the last one.

    Returns a dict with keys 'learning_rates', 'loss_before', 'loss_after',
    'first_layer_weight_change' and 'second_layer_weight_change'.
    """
    # TODO: one torch.optim.SGD with two param groups, 5 training steps, then measure the changes
    return {}
