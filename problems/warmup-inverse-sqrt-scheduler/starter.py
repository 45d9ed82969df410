import math

import torch
from torch.optim.lr_scheduler import LRScheduler


class WarmupInverseSqrtLR(LRScheduler):
    """Linear warmup to each group's base lr over warmup_steps, then decay as 1/sqrt(step).

    With t = self.last_epoch + 1: factor = min(t / warmup_steps, sqrt(warmup_steps / t)),
    and each group's lr is its base lr (self.base_lrs) times factor.
    """

    def __init__(self, optimizer, warmup_steps: int, last_epoch: int = -1) -> None:
        # TODO: store warmup_steps and initialise the base class
        raise NotImplementedError("WarmupInverseSqrtLR is not implemented yet")

    def get_lr(self) -> list[float]:
        # TODO: one learning rate per param group
        raise NotImplementedError


def lr_schedule(base_lrs: list[float], warmup_steps: int, num_steps: int) -> list[list[float]]:
    """One SGD param group per base lr, your scheduler on top, and the lr of every group after
    construction and after each of num_steps (optimizer.step(); scheduler.step()) iterations."""
    # TODO
    raise NotImplementedError("lr_schedule is not implemented yet")
