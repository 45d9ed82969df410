"""Tests for freeze-backbone.

The returned values are checked under several seeds; one case also records which tensors the
solution hands to its optimizer (only the head's weight and bias are allowed).
"""

import torch

from runner.testing import case, set_class_attribute, shifted_seed

ATOL = 1e-3  # losses are rounded to 4 decimals by the solution


@case(public=True, atol=ATOL)
def example(solution):
    return solution.freeze_backbone_test()


@case(atol=ATOL, rule="freeze-by-requires-grad")
def shifted_seed_6(solution):
    with shifted_seed(6):
        return solution.freeze_backbone_test()


@case(atol=ATOL)
def shifted_seed_30(solution):
    with shifted_seed(30):
        return solution.freeze_backbone_test()


@case(rule="only-trainable-to-optimizer")
def optimizer_gets_only_trainable_params(solution):
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
        with shifted_seed(2):
            solution.freeze_backbone_test()
    finally:
        set_class_attribute(torch.optim.Optimizer, "__init__", original_init)
        set_class_attribute(torch.optim.SGD, "step", sgd_step)
    described = []
    for optimizer in optimizers:
        params = [p for group in optimizer.param_groups for p in group["params"]]
        described.append(
            {
                "type": type(optimizer).__name__,
                "steps": steps.get(id(optimizer), 0),
                "shapes": sorted(list(p.shape) for p in params),
                "all_require_grad": all(p.requires_grad for p in params),
                "lr": sorted({float(g["lr"]) for g in optimizer.param_groups}),
                "momentum": sorted({float(g.get("momentum", 0.0)) for g in optimizer.param_groups}),
            }
        )
    return described


@case(rule="freeze-by-requires-grad")
def backbone_frozen_by_requires_grad(solution):
    """Every module the solution builds is recorded: after the run, the frozen parameters (by their
    requires_grad flag) must be the backbone's, whatever the numbers it reports."""
    original_init = torch.nn.Module.__init__
    modules = []
    # Flags set for show once training is over would pass the count below: every forward call of a
    # module with parameters also records its parameters' flags at that moment (a backbone kept out
    # of training by `no_grad()` or `detach()` runs with its flags on; `no_grad()` on top of frozen
    # flags is not recorded against anyone).
    forward_calls = []

    def record(module, inputs):
        own = list(module.parameters(recurse=False))
        if own:
            forward_calls.append([p.requires_grad for p in own])

    def spying_init(self, *args, **kwargs):
        original_init(self, *args, **kwargs)
        modules.append(self)
        self.register_forward_pre_hook(record)

    set_class_attribute(torch.nn.Module, "__init__", spying_init)
    try:
        with shifted_seed(3):
            solution.freeze_backbone_test()
    finally:
        set_class_attribute(torch.nn.Module, "__init__", original_init)
    own = [p for m in modules for p in m.parameters(recurse=False)]
    return {
        "frozen_elements": sum(p.numel() for p in own if not p.requires_grad),
        "trainable_elements": sum(p.numel() for p in own if p.requires_grad),
        "forward_calls": forward_calls,
    }
