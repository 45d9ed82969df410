"""Tests for layer-weight-decay.

Besides the returned values under several seeds, one case records the optimizer the solution builds
and reports, for every parameter, the weight decay and learning rate it is actually optimized with:
this catches a default ``weight_decay`` leaking into the no-decay group.
"""

import torch

from runner.testing import case, set_class_attribute, shifted_seed

ATOL = 1e-3  # values are rounded to 4 decimals by the solution


@case(public=True, atol=ATOL)
def example(solution):
    return solution.weight_decay_groups_test()


@case(atol=ATOL)
def shifted_seed_4(solution):
    with shifted_seed(4):
        return solution.weight_decay_groups_test()


@case(atol=ATOL)
def shifted_seed_21(solution):
    with shifted_seed(21):
        return solution.weight_decay_groups_test()


@case(rule="one-sgd-decay-groups", rule_by_value=True)
def effective_hyperparameters_per_parameter(solution):
    """Spy on optimizer construction; describe each parameter by (shape, weight_decay, lr)."""
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
        solution.weight_decay_groups_test()
    finally:
        set_class_attribute(torch.optim.Optimizer, "__init__", original_init)
        set_class_attribute(torch.optim.SGD, "step", sgd_step)
    described = []
    for optimizer in optimizers:
        entries = []
        for group in optimizer.param_groups:
            for p in group["params"]:
                entries.append([list(p.shape), float(group.get("weight_decay", 0.0)), float(group["lr"])])
        entries.sort()
        described.append({"type": type(optimizer).__name__, "params": entries, "steps": steps.get(id(optimizer), 0)})
    return described
