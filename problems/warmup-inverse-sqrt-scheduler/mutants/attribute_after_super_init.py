# rule: lr-scheduler-subclass
import math

import torch
from torch.optim.lr_scheduler import LRScheduler


class WarmupInverseSqrtLR(LRScheduler):
    """Linear warmup to each group's base lr over warmup_steps, then decay as 1/sqrt(step)."""

    def __init__(self, optimizer, warmup_steps: int, last_epoch: int = -1) -> None:
        if warmup_steps < 1:
            raise ValueError("warmup_steps must be at least 1")
        super().__init__(optimizer, last_epoch)
        self.warmup_steps = warmup_steps  # too late: the base constructor already called get_lr()

    def get_lr(self) -> list[float]:
        t = self.last_epoch + 1
        factor = min(t / self.warmup_steps, math.sqrt(self.warmup_steps / t))
        return [base_lr * factor for base_lr in self.base_lrs]


def lr_schedule(base_lrs: list[float], warmup_steps: int, num_steps: int) -> list[list[float]]:
    params = [torch.nn.Parameter(torch.zeros(1)) for _ in base_lrs]
    optimizer = torch.optim.SGD([{"params": [p], "lr": lr} for p, lr in zip(params, base_lrs)])
    scheduler = WarmupInverseSqrtLR(optimizer, warmup_steps)
    history = [[group["lr"] for group in optimizer.param_groups]]
    for _ in range(num_steps):
        optimizer.step()
        scheduler.step()
        history.append([group["lr"] for group in optimizer.param_groups])
    return history
