"""Tests for gradient-accumulation.

The accumulated step is compared with the reference (which equals one big-batch step): gradients,
parameters after the step and the returned loss, for several micro-batch sizes, two optimizers, stale
gradients present before the call, input integrity and the number of optimizer steps.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F

from runner.testing import case, set_class_attribute, writes_during

RTOL = 1e-5
ATOL = 1e-6


def setup(seed, n, optimizer="sgd"):
    torch.manual_seed(seed)
    model = nn.Sequential(nn.Linear(3, 6), nn.Tanh(), nn.Linear(6, 2))
    gen = torch.Generator().manual_seed(seed + 100)
    x = torch.randn(n, 3, generator=gen)
    y = torch.randn(n, 2, generator=gen)
    if optimizer == "sgd":
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
    else:
        opt = torch.optim.Adam(model.parameters(), lr=0.01)
    return model, opt, x, y


def run(solution, seed, n, micro, optimizer="sgd", loss_fn=F.mse_loss):
    model, opt, x, y = setup(seed, n, optimizer)
    loss = solution.accumulated_step(model, opt, loss_fn, x, y, micro)
    return {
        "loss": loss,
        "grads": [p.grad for p in model.parameters()],
        "params": [p.detach() for p in model.parameters()],
    }


@case(public=True, rtol=RTOL, atol=ATOL)
def example(solution):
    torch.manual_seed(0)
    model = nn.Linear(2, 1)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    inputs = torch.tensor([[1.0, 2.0], [0.0, 1.0], [-1.0, 0.5], [2.0, -1.0], [0.5, 0.5]])
    targets = torch.tensor([[1.0], [0.0], [-1.0], [2.0], [0.5]])
    loss = solution.accumulated_step(model, optimizer, F.mse_loss, inputs, targets, 2)
    return {
        "loss": round(loss, 6),
        "weight": [round(v, 6) for v in model.weight.flatten().tolist()],
        "bias": round(model.bias.item(), 6),
    }


@case(rtol=RTOL, atol=ATOL)
def leftover_of_two(solution):
    return run(solution, 1, 10, 4)


@case(rtol=RTOL, atol=ATOL)
def leftover_of_one(solution):
    return run(solution, 2, 10, 3)


@case(rtol=RTOL, atol=ATOL)
def equal_micro_batches(solution):
    return run(solution, 3, 12, 4)


@case(rtol=RTOL, atol=ATOL)
def one_sample_per_micro_batch(solution):
    return run(solution, 4, 7, 1)


@case(rtol=RTOL, atol=ATOL)
def micro_batch_larger_than_batch(solution):
    return run(solution, 5, 6, 16)


@case(rtol=RTOL, atol=ATOL)
def with_adam_and_l1(solution):
    return run(solution, 6, 11, 5, optimizer="adam", loss_fn=F.l1_loss)


@case(rtol=RTOL, atol=ATOL)
def stale_gradients_are_cleared(solution):
    model, opt, x, y = setup(7, 9, "sgd")
    for p in model.parameters():
        p.grad = torch.full_like(p, 5.0)  # left over from somewhere else
    loss = solution.accumulated_step(model, opt, F.mse_loss, x, y, 4)
    return {"loss": loss, "params": [p.detach() for p in model.parameters()]}


@case(rtol=RTOL, atol=ATOL, rule="one-step-after-all-slices")
def one_step_inputs_untouched(solution):
    model, opt, x, y = setup(8, 10, "sgd")
    x_before, y_before = x.clone(), y.clone()
    steps = []
    original_step = opt.step

    def counting_step(*args, **kwargs):
        steps.append(1)
        return original_step(*args, **kwargs)

    opt.step = counting_step
    # The class's own step counts too: calling type(opt).step(opt) goes around the instance attribute.
    cls = type(opt)
    class_step = cls.step

    def counting_class_step(self, *args, **kwargs):
        if self is opt:
            steps.append(1)
        return class_step(self, *args, **kwargs)

    set_class_attribute(cls, "step", counting_class_step)
    try:
        solution.accumulated_step(model, opt, F.mse_loss, x, y, 3)
    finally:
        set_class_attribute(cls, "step", class_step)
    return {
        "optimizer_steps": len(steps),
        "inputs_unchanged": torch.equal(x, x_before) and torch.equal(y, y_before),
    }


@case(rule="inputs-not-modified")
def inputs_never_written(solution):
    """Modify-and-restore leaves the values right but moves the tensors' version counters."""
    model, opt, x, y = setup(9, 10, "sgd")
    before = (x._version, y._version)
    # `.data` has a version counter of its own: the watch sees a write through any alias.
    _, written = writes_during(lambda: solution.accumulated_step(model, opt, F.mse_loss, x, y, 3), x, y)
    return {"writes": [x._version - before[0], y._version - before[1]], "written_by_any_alias": written}
