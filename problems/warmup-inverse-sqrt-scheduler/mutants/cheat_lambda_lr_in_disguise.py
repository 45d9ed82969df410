# rule: lr-scheduler-subclass
# kind: cheat
# A LambdaLR under the expected name: it is an LRScheduler and its rates are right, but they come
# from a closure, not from get_lr(), and its state_dict cannot carry warmup_steps.
import math

import torch
from torch.optim.lr_scheduler import LambdaLR


class WarmupInverseSqrtLR(LambdaLR):
    def __init__(self, optimizer, warmup_steps, last_epoch=-1):
        def factor(step):
            t = step + 1
            return min(t / warmup_steps, math.sqrt(warmup_steps / t))

        super().__init__(optimizer, factor, last_epoch)


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
