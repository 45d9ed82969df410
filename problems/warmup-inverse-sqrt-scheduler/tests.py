"""Tests for warmup-inverse-sqrt-scheduler.

The schedule is compared over many steps and several param groups; the class is also used directly:
it must be an LRScheduler, report get_last_lr(), and survive a state_dict round-trip mid-run.
"""

import torch
from torch.optim.lr_scheduler import LRScheduler

from runner.testing import case

RTOL = 1e-6
ATOL = 1e-9


def sgd(base_lrs):
    params = [torch.nn.Parameter(torch.zeros(1)) for _ in base_lrs]
    return torch.optim.SGD([{"params": [p], "lr": lr} for p, lr in zip(params, base_lrs)])


def lrs(optimizer):
    return [group["lr"] for group in optimizer.param_groups]


@case(public=True, rtol=RTOL, atol=ATOL)
def example(solution):
    return solution.lr_schedule([0.1, 0.01], 3, 6)


@case(rtol=RTOL, atol=ATOL)
def long_run_three_groups(solution):
    return solution.lr_schedule([1.0, 0.5, 3e-4], 10, 120)


@case(rtol=RTOL, atol=ATOL)
def warmup_of_one_step(solution):
    return solution.lr_schedule([0.2], 1, 20)


@case(rtol=RTOL, atol=ATOL)
def long_warmup(solution):
    return solution.lr_schedule([7e-4, 1e-3], 4000, 30)


@case(rtol=RTOL, atol=ATOL, rule="lr-scheduler-subclass")
def is_a_scheduler_with_last_lr(solution):
    optimizer = sgd([0.3, 0.03])
    scheduler = solution.WarmupInverseSqrtLR(optimizer, 5)
    seen = []
    for _ in range(12):
        optimizer.step()
        scheduler.step()
        seen.append({"last_lr": list(scheduler.get_last_lr()), "groups": lrs(optimizer)})
    # get_lr() itself, with the groups' rates overwritten: it computes from base_lrs and last_epoch.
    # A schedule kept in an overridden step() behind a get_lr() that computes nothing shows the
    # right rates everywhere else.
    for group in optimizer.param_groups:
        group["lr"] = -1.0
    computed = list(scheduler.get_lr())
    return {"is_lr_scheduler": isinstance(scheduler, LRScheduler), "steps": seen, "get_lr": computed}


@case(rtol=RTOL, atol=ATOL, rule="lr-scheduler-subclass")
def state_dict_round_trip(solution):
    optimizer = sgd([0.5, 0.05])
    scheduler = solution.WarmupInverseSqrtLR(optimizer, 4)
    for _ in range(7):
        optimizer.step()
        scheduler.step()
    state = scheduler.state_dict()
    # Resume into a fresh optimizer (same base lrs) and a scheduler built with another warmup:
    # everything must come from the state dict.
    fresh_optimizer = sgd([0.5, 0.05])
    resumed = solution.WarmupInverseSqrtLR(fresh_optimizer, 1)
    resumed.load_state_dict(state)
    continued = []
    for _ in range(8):
        optimizer.step()
        scheduler.step()
        fresh_optimizer.step()
        resumed.step()
        continued.append({"original": lrs(optimizer), "resumed": lrs(fresh_optimizer)})
    return {"warmup_steps_in_state": state.get("warmup_steps"), "continued": continued}
