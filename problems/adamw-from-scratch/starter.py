import math

import torch
from torch.optim import Optimizer


class MyAdamW(Optimizer):
    """Adam with decoupled weight decay, written by hand; must match torch.optim.AdamW."""

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2):
        # TODO: put the hyper-parameters in `defaults` and call super().__init__(params, defaults)
        raise NotImplementedError("MyAdamW is not implemented yet")

    @torch.no_grad()
    def step(self, closure=None):
        # TODO: for every group and every parameter that has a gradient:
        #   per-parameter state (step, first and second moments), decoupled weight decay,
        #   moment updates, bias correction, parameter update. Return closure's loss (or None).
        raise NotImplementedError


def build_adamw(params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2):
    """Return MyAdamW over params (an iterable of tensors or a list of param-group dicts)."""
    return MyAdamW(params, lr=lr, betas=betas, eps=eps, weight_decay=weight_decay)
