"""Tests for per-layer-lr.

The returned values are checked under several seeds; one case also records, for every parameter the
solution's optimizer holds, the learning rate it is trained with.
"""

import torch

from runner.testing import case, set_class_attribute, shifted_seed

ATOL = 1e-3  # values are rounded to 4 decimals by the solution


@case(public=True, atol=ATOL)
def example(solution):
    return solution.per_layer_lr_test()


@case(atol=ATOL)
def shifted_seed_8(solution):
    with shifted_seed(8):
        return solution.per_layer_lr_test()


@case(atol=ATOL)
def shifted_seed_40(solution):
    with shifted_seed(40):
        return solution.per_layer_lr_test()


@case(rule="one-sgd-two-groups", rule_by_value=True)
def learning_rate_per_parameter(solution):
    original_init = torch.optim.Optimizer.__init__
    optimizers = []

    def spying_init(self, *args, **kwargs):
        original_init(self, *args, **kwargs)
        optimizers.append(self)

    # Built for show and never stepped, an optimizer would be described all the same: its steps count.
    steps = {}
    sgd_step = torch.optim.SGD.step

    def counting_step(self, *args, **kwargs):
        steps[id(self)] = steps.get(id(self), 0) + 1
        return sgd_step(self, *args, **kwargs)

    counting_step.hooked = True  # Optimizer.__init__ wraps a class's step once, unless it says so
    set_class_attribute(torch.optim.Optimizer, "__init__", spying_init)
    set_class_attribute(torch.optim.SGD, "step", counting_step)
    try:
        solution.per_layer_lr_test()
    finally:
        set_class_attribute(torch.optim.Optimizer, "__init__", original_init)
        set_class_attribute(torch.optim.SGD, "step", sgd_step)
    described = []
    for optimizer in optimizers:
        entries = sorted(
            [list(p.shape), float(group["lr"])] for group in optimizer.param_groups for p in group["params"]
        )
        described.append({"type": type(optimizer).__name__, "params": entries, "steps": steps.get(id(optimizer), 0)})
    return described
