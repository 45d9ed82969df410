"""Tests for custom-sgd-optimizer.

Besides the training run of ``custom_sgd_test`` (under several seeds), the hidden cases drive the
learner's ``CustomSGD`` class directly on small hand-made parameters: the update rule with momentum and
weight decay, per-group hyper-parameters, parameters without gradients, and the closure protocol.
``check_optimizer`` runs it step by step next to ``torch.optim.SGD`` with gradients zeroed in place, and
reports what ``step()`` changed besides parameters and state (a gradient, a param group).
"""

import functools
import importlib

import torch

from runner.testing import case, check_optimizer, forbid_ops, set_class_attribute, shifted_seed, writes_during

ATOL = 1e-3  # the training run reports values rounded to 4 decimals


def _quadratic_loss(params):
    # A fixed, non-trivial loss: sum_i c_i * p_i^2 + sum_i p_i (different curvature per coordinate).
    total = 0.0
    for p in params:
        c = torch.linspace(0.5, 2.0, p.numel()).reshape(p.shape)
        total = total + (c * p**2).sum() + p.sum()
    return total


def _run(optimizer, params, steps):
    for _ in range(steps):
        optimizer.zero_grad()
        _quadratic_loss(params).backward()
        optimizer.step()


@case(public=True, atol=ATOL)
def example(solution):
    return solution.custom_sgd_test()


@case(atol=ATOL)
def shifted_seed_2(solution):
    with shifted_seed(2):
        return solution.custom_sgd_test()


@case(atol=ATOL)
def shifted_seed_13(solution):
    with shifted_seed(13):
        return solution.custom_sgd_test()


@case
def is_an_optimizer_with_defaults(solution):
    p = torch.nn.Parameter(torch.zeros(2))
    plain = solution.CustomSGD([p])
    tuned = solution.CustomSGD([p], lr=0.3, momentum=0.5, weight_decay=0.2)
    keys = ("lr", "momentum", "weight_decay")
    return {
        "subclass": issubclass(solution.CustomSGD, torch.optim.Optimizer),
        "plain_group": {k: plain.param_groups[0][k] for k in keys},
        "tuned_group": {k: tuned.param_groups[0][k] for k in keys},
    }


@case(atol=1e-5)
def update_rule_momentum_and_weight_decay(solution):
    p = torch.nn.Parameter(torch.tensor([1.0, -2.0, 3.0]))
    q = torch.nn.Parameter(torch.tensor([[0.5, -0.5], [2.0, 1.0]]))
    optimizer = solution.CustomSGD([p, q], lr=0.1, momentum=0.9, weight_decay=0.1)
    _run(optimizer, [p, q], steps=5)
    return {"p": p.detach().clone(), "q": q.detach().clone()}


@case(atol=1e-5)
def plain_sgd_defaults(solution):
    p = torch.nn.Parameter(torch.tensor([1.5, -0.5, 0.25, 4.0]))
    optimizer = solution.CustomSGD([p])  # lr=0.01, no momentum, no weight decay
    _run(optimizer, [p], steps=3)
    return p.detach().clone()


@case(atol=1e-5)
def per_group_hyperparameters(solution):
    a = torch.nn.Parameter(torch.tensor([1.0, 2.0]))
    b = torch.nn.Parameter(torch.tensor([-1.0, 0.5, 3.0]))
    optimizer = solution.CustomSGD(
        [{"params": [a], "lr": 0.2}, {"params": [b], "momentum": 0.0, "weight_decay": 0.5}],
        lr=0.05,
        momentum=0.9,
    )
    _run(optimizer, [a, b], steps=4)
    return {"a": a.detach().clone(), "b": b.detach().clone()}


@case(atol=1e-5)
def skips_parameters_without_grad(solution):
    used = torch.nn.Parameter(torch.tensor([2.0, -1.0]))
    unused = torch.nn.Parameter(torch.tensor([5.0, 5.0]))
    optimizer = solution.CustomSGD([used, unused], lr=0.1, momentum=0.9, weight_decay=0.1)
    _run(optimizer, [used], steps=3)
    return {"used": used.detach().clone(), "unused": unused.detach().clone()}


@case(atol=1e-5)
def step_with_closure(solution):
    p = torch.nn.Parameter(torch.tensor([1.0, -3.0]))
    optimizer = solution.CustomSGD([p], lr=0.1, momentum=0.5)
    returned = []

    def closure():
        optimizer.zero_grad()
        loss = _quadratic_loss([p])
        loss.backward()
        return loss

    for _ in range(3):
        loss = optimizer.step(closure)
        returned.append(None if loss is None else float(loss))
    return {"returned_losses": returned, "p": p.detach().clone()}


ONLY_PARAMS_AND_STATE = (
    "`step()` changes only the parameters and `self.state`: "
    "it never modifies `p.grad` or the param groups in place, not even temporarily."
)
SAME_AS_SGD = "This is exactly `torch.optim.SGD` with `dampening=0` and `nesterov=False`."


@case(atol=1e-5, rule="step-touches-only-params-and-state")
def like_torch_sgd_with_momentum(solution):
    return check_optimizer(
        lambda params: solution.CustomSGD(params, lr=0.1, momentum=0.9),
        against=functools.partial(torch.optim.SGD, lr=0.1, momentum=0.9),
        steps=6,
        constraint=ONLY_PARAMS_AND_STATE,
    )


@case(atol=1e-5)
def like_torch_sgd_with_weight_decay(solution):
    return check_optimizer(
        lambda params: solution.CustomSGD(params, lr=0.05, momentum=0.5, weight_decay=0.1),
        against=functools.partial(torch.optim.SGD, lr=0.05, momentum=0.5, weight_decay=0.1),
        steps=6,
        constraint=SAME_AS_SGD,
    )


NO_BUILTIN = "`CustomSGD` must not use `torch.optim.SGD`, its functional or its fused kernels."


@case(rule="no-builtin-sgd")
def no_builtin_sgd(solution):
    """SGD's constructor and the kernels its functional form dispatches to are counted; those are
    looked up in torch.optim.sgd's globals at every call, so a reference taken at import is seen too."""
    calls = []
    patched = []
    module = importlib.import_module("torch.optim.sgd")

    def wrap(owner, name):
        original = getattr(owner, name)

        def counting(*args, **kwargs):
            calls.append(name)
            return original(*args, **kwargs)

        set_class_attribute(owner, name, counting)
        patched.append((owner, name, original))

    wrap(torch.optim.SGD, "__init__")
    for name in ("sgd", "_single_tensor_sgd", "_multi_tensor_sgd", "_fused_sgd"):
        if hasattr(module, name):
            wrap(module, name)
    try:
        p = torch.nn.Parameter(torch.tensor([1.0, -2.0, 3.0]))
        optimizer = solution.CustomSGD([p], lr=0.1, momentum=0.9, weight_decay=0.01)
        with forbid_ops(dict.fromkeys(("aten._fused_sgd_", "aten._fused_sgd"), NO_BUILTIN)):
            for step in range(3):
                p.grad = torch.tensor([0.5, -1.0, 0.25]) * (step + 1)
                optimizer.step()
    finally:
        for owner, name, original in reversed(patched):
            set_class_attribute(owner, name, original)
    bases = [c.__name__ for c in solution.CustomSGD.__mro__ if c is torch.optim.SGD]
    return {"builtin_calls": len(calls), "sgd_bases": bases, "param": p.detach()}


@case(rule="step-touches-only-params-and-state")
def step_never_writes_gradients(solution):
    """Write-and-restore leaves p.grad's values right but moves its version counter."""
    params = [
        torch.nn.Parameter(torch.randn(3, generator=torch.Generator().manual_seed(i))) for i in range(2)
    ]
    optimizer = solution.CustomSGD(params, lr=0.1, momentum=0.9, weight_decay=0.1)
    writes = []
    aliased = []
    for step in range(3):
        for i, p in enumerate(params):
            p.grad = torch.randn(3, generator=torch.Generator().manual_seed(10 * step + i))
        before = [p.grad._version for p in params]
        # `.data` has a version counter of its own: the watch sees a write through any alias.
        _, written = writes_during(optimizer.step, *[p.grad for p in params])
        writes.append([p.grad._version - b for p, b in zip(params, before, strict=True)])
        aliased.append(written)
    return {"writes_to_grads": writes, "grads_written_by_any_alias": aliased}
