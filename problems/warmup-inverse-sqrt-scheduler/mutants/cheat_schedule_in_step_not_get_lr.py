# rule: lr-scheduler-subclass
# kind: cheat
# Keeps the schedule in an overridden step() (setting each group's lr and _last_lr itself); its
# get_lr() computes nothing, and nothing else asks it.
import math

import torch
from torch.optim.lr_scheduler import LRScheduler


class WarmupInverseSqrtLR(LRScheduler):
    def __init__(self, optimizer, warmup_steps: int, last_epoch: int = -1) -> None:
        if warmup_steps < 1:
            raise ValueError("warmup_steps must be at least 1")
        self.warmup_steps = warmup_steps
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        return [group["lr"] for group in self.optimizer.param_groups]  # computes nothing

    def step(self, epoch=None):
        # The schedule lives here: get_lr() is never asked.
        self.last_epoch += 1
        t = self.last_epoch + 1
        factor = min(t / self.warmup_steps, math.sqrt(self.warmup_steps / t))
        for group, base in zip(self.optimizer.param_groups, self.base_lrs):
            group["lr"] = base * factor
        self._last_lr = [group["lr"] for group in self.optimizer.param_groups]


def lr_schedule(base_lrs, warmup_steps, num_steps):
    params = [torch.nn.Parameter(torch.zeros(1)) for _ in base_lrs]
    optimizer = torch.optim.SGD([{"params": [p], "lr": lr} for p, lr in zip(params, base_lrs)])
    scheduler = WarmupInverseSqrtLR(optimizer, warmup_steps)
    history = [[group["lr"] for group in optimizer.param_groups]]
    for _ in range(num_steps):
        optimizer.step()
        scheduler.step()
        history.append([group["lr"] for group in optimizer.param_groups])
    return history
