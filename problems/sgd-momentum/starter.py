import torch
import torch.nn as nn
import torch.nn.functional as F


def sgd_momentum_test() -> dict:
    """Train nn.Linear(3, 1) for 10 steps with a hand-written SGD + momentum update.

    Returns a dict with keys 'losses' (10 floats), 'final_weight' (3 floats) and 'final_bias' (float),
    all rounded to 4 decimals. Do not use torch.optim.
    """
    # TODO: seed, build the model and the data, keep one velocity buffer per parameter,
    # and apply v = momentum * v + grad; p = p - lr * v for 10 steps.
    return {}
