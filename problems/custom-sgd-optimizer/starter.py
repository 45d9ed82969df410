from collections.abc import Callable, Iterable

import torch
import torch.nn as nn
import torch.nn.functional as F


class CustomSGD(torch.optim.Optimizer):
    """SGD with optional momentum and L2 weight decay, written as a torch.optim.Optimizer subclass."""

    def __init__(
        self,
        params: Iterable,
        lr: float = 0.01,
        momentum: float = 0.0,
        weight_decay: float = 0.0,
    ) -> None:
        # TODO: validate the hyper-parameters and call super().__init__(params, defaults)
        raise NotImplementedError

    @torch.no_grad()
    def step(self, closure: Callable[[], torch.Tensor] | None = None) -> torch.Tensor | None:
        # TODO: evaluate the closure (if any) with gradients enabled, then update every parameter
        # of every param group; keep the momentum buffer in self.state[p]
        raise NotImplementedError


def custom_sgd_test() -> dict:
    """Train the fixed model for 15 steps with CustomSGD and return {'losses': [...], 'final_loss': ...}."""
    # TODO
    return {}
