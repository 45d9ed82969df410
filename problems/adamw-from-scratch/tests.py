"""Tests for adamw-from-scratch.

The learner's optimizer trains small models for many steps; parameters and losses are compared
along the way. Cases cover param groups, parameters without gradients (always, or every other step),
a large eps, a closure, the Optimizer interface, step-by-step comparison with torch.optim.AdamW
(check_optimizer, which also sees a step that writes into p.grad), and that no built-in
Adam/AdamW does the work.
"""

import functools
import importlib

import torch
import torch.nn as nn
import torch.nn.functional as F

from runner.testing import case, check_optimizer, forbid_ops, set_class_attribute, writes_during

ONLY_PARAMS_AND_STATE = (
    "`step()` changes only the parameters and `self.state`: it never modifies `p.grad` or the param groups "
    "in place."
)
SKIPPED = (
    "A parameter whose `.grad` is `None` is skipped entirely for that step: it is not decayed, its "
    "moments do not change and its step count does not advance."
)

NO_BUILTIN = (
    "Do not use `torch.optim.Adam` or `torch.optim.AdamW` nor their functional or fused kernels "
    "(`torch._fused_adamw_`)."
)

RTOL = 1e-4
ATOL = 1e-5


def mlp(seed):
    torch.manual_seed(seed)
    return nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 1))


def data(seed, n=16):
    gen = torch.Generator().manual_seed(seed)
    x = torch.randn(n, 4, generator=gen)
    y = torch.randn(n, 1, generator=gen)
    return x, y


def train(model, optimizer, x, y, steps, before_step=None):
    losses = []
    for i in range(steps):
        optimizer.zero_grad()
        loss = F.mse_loss(model(x), y)
        loss.backward()
        if before_step is not None:
            before_step(i)
        optimizer.step()
        losses.append(loss.item())
    return {"losses": losses, "params": [p.detach().clone() for p in model.parameters()]}


@case(public=True, rtol=RTOL, atol=ATOL)
def example(solution):
    w = torch.tensor([1.0, -2.0, 3.0], requires_grad=True)
    optimizer = solution.build_adamw([w], lr=0.1, weight_decay=0.1)
    trajectory = []
    for _ in range(3):
        optimizer.zero_grad()
        (w**2).sum().backward()
        optimizer.step()
        trajectory.append([round(v, 5) for v in w.tolist()])
    return trajectory


@case(rtol=RTOL, atol=ATOL)
def mlp_sixty_steps(solution):
    model = mlp(1)
    x, y = data(2)
    return train(model, solution.build_adamw(model.parameters(), lr=1e-2), x, y, 60)


@case(rtol=RTOL, atol=ATOL)
def custom_betas_and_strong_decay(solution):
    model = mlp(3)
    x, y = data(4)
    optimizer = solution.build_adamw(model.parameters(), lr=3e-2, betas=(0.5, 0.9), weight_decay=0.5)
    # 20 steps: with beta2 = 0.9, coordinates whose gradient hovers around 0 make longer runs
    # sensitive to float rounding, and equally correct implementations would drift apart.
    return train(model, optimizer, x, y, 20)


@case(rtol=RTOL, atol=ATOL)
def large_eps(solution):
    model = mlp(5)
    x, y = data(6)
    optimizer = solution.build_adamw(model.parameters(), lr=5e-2, eps=0.1, weight_decay=0.0)
    return train(model, optimizer, x, y, 30)


@case(rtol=RTOL, atol=ATOL)
def param_groups(solution):
    model = mlp(7)
    x, y = data(8)
    optimizer = solution.build_adamw(
        [
            {"params": model[0].parameters(), "lr": 1e-3, "weight_decay": 0.0},
            {"params": model[2].parameters(), "betas": (0.8, 0.99)},
        ],
        lr=2e-2,
        weight_decay=0.2,
    )
    result = train(model, optimizer, x, y, 40)
    result["groups"] = [
        {"lr": g["lr"], "betas": list(g["betas"]), "eps": g["eps"], "weight_decay": g["weight_decay"]}
        for g in optimizer.param_groups
    ]
    return result


@case(rtol=RTOL, atol=ATOL)
def parameter_without_grad_untouched(solution):
    model = mlp(9)
    unused = nn.Parameter(torch.ones(3))  # never in the loss: its .grad stays None
    x, y = data(10)
    optimizer = solution.build_adamw([*model.parameters(), unused], lr=1e-2, weight_decay=0.3)
    result = train(model, optimizer, x, y, 20)
    result["unused"] = unused.detach().clone()
    return result


@case(rtol=RTOL, atol=ATOL)
def gradient_only_every_other_step(solution):
    model = mlp(11)
    x, y = data(12)
    optimizer = solution.build_adamw(model.parameters(), lr=2e-2, weight_decay=0.1)

    def drop_last_bias_grad(i):
        if i % 2 == 1:
            model[2].bias.grad = None  # this parameter skips odd steps entirely

    return train(model, optimizer, x, y, 25, before_step=drop_last_bias_grad)


@case(rtol=RTOL, atol=ATOL)
def step_with_closure(solution):
    model = mlp(13)
    x, y = data(14)
    optimizer = solution.build_adamw(model.parameters(), lr=1e-2)

    def closure():
        optimizer.zero_grad()
        loss = F.mse_loss(model(x), y)
        loss.backward()
        return loss

    returned = [optimizer.step(closure).item() for _ in range(10)]
    return {"returned_losses": returned, "params": [p.detach() for p in model.parameters()]}


@case(rtol=RTOL, atol=ATOL, rule="step-touches-only-params-and-state")
def like_torch_adamw_step_by_step(solution):
    """Every step beside torch.optim.AdamW; gradients are zeroed in place, so a step that writes into
    p.grad changes what the next backward accumulates into."""
    return check_optimizer(
        lambda params: solution.build_adamw(params, lr=0.05, betas=(0.8, 0.95), weight_decay=0.1),
        against=functools.partial(torch.optim.AdamW, lr=0.05, betas=(0.8, 0.95), weight_decay=0.1),
        steps=6,
        constraint=ONLY_PARAMS_AND_STATE,
    )


@case(rtol=RTOL, atol=ATOL, rule="step-touches-only-params-and-state")
def frozen_parameter_beside_torch_adamw(solution):
    """A parameter never in the loss keeps .grad None: with strong decay it must still not move."""
    return check_optimizer(
        lambda params: solution.build_adamw(params, lr=0.1, eps=1e-3, weight_decay=0.5),
        against=functools.partial(torch.optim.AdamW, lr=0.1, eps=1e-3, weight_decay=0.5),
        steps=4,
        set_to_none=True,
        constraint=SKIPPED,
    )


@case
def is_an_optimizer(solution):
    model = mlp(15)
    optimizer = solution.build_adamw(
        model.parameters(), lr=0.5, betas=(0.7, 0.8), eps=1e-6, weight_decay=0.25
    )
    group = optimizer.param_groups[0]
    return {
        "is_optimizer": isinstance(optimizer, torch.optim.Optimizer),
        "group": {
            k: (list(group[k]) if k == "betas" else group[k]) for k in ("lr", "betas", "eps", "weight_decay")
        },
        "num_params": len(group["params"]),
    }


@case(rtol=RTOL, atol=ATOL, rule="no-builtin-adam")
def no_builtin_adam(solution):
    """Count constructions of torch's Adam/AdamW and calls to their functional kernels."""
    calls = []
    patched = []

    def wrap(owner, name, label):
        original = getattr(owner, name)

        def counting(*args, **kwargs):
            calls.append(label)
            return original(*args, **kwargs)

        set_class_attribute(owner, name, counting)
        patched.append((owner, name, original))

    for cls in (torch.optim.Adam, torch.optim.AdamW):
        wrap(cls, "__init__", cls.__name__)
    # torch.optim deletes its submodule attributes: fetch the modules by name.
    kernels = [("torch.optim.adam", "adam"), ("torch.optim.adamw", "adamw")]
    kernels += [("torch.optim._functional", "adam"), ("torch.optim._functional", "adamw")]
    # The functional forms look these up in their module's globals at every call: a reference to
    # adamw() taken at import is seen through them.
    for private in ("_single_tensor_adam", "_multi_tensor_adam", "_fused_adam"):
        kernels += [("torch.optim.adam", private), ("torch.optim.adamw", private)]
    for module_name, name in kernels:
        module = importlib.import_module(module_name)
        if hasattr(module, name):
            wrap(module, name, f"{module.__name__}.{name}")
    fused = dict.fromkeys(
        ("aten._fused_adamw_", "aten._fused_adam_", "aten._fused_adamw", "aten._fused_adam"), NO_BUILTIN
    )
    try:
        model = mlp(16)
        x, y = data(17)
        optimizer = solution.build_adamw(model.parameters(), lr=1e-2)
        with forbid_ops(fused):
            result = train(model, optimizer, x, y, 5)
    finally:
        for owner, name, original in reversed(patched):
            set_class_attribute(owner, name, original)
    builtin_bases = [
        c.__name__ for c in type(optimizer).__mro__ if c in (torch.optim.Adam, torch.optim.AdamW)
    ]
    return {"builtin_calls": len(calls), "builtin_bases": builtin_bases, "losses": result["losses"]}


@case(rule="step-touches-only-params-and-state")
def step_never_writes_gradients(solution):
    """Write-and-restore leaves p.grad's values right but moves its version counter."""
    model = mlp(18)
    optimizer = solution.build_adamw(model.parameters(), lr=1e-2, weight_decay=0.1)
    g = torch.Generator().manual_seed(18)
    writes = []
    aliased = []
    for _ in range(3):
        for p in model.parameters():
            p.grad = torch.randn(p.shape, generator=g)
        before = [p.grad._version for p in model.parameters()]
        # `.data` has a version counter of its own: the watch sees a write through any alias.
        _, written = writes_during(optimizer.step, *[p.grad for p in model.parameters()])
        writes.append([p.grad._version - b for p, b in zip(model.parameters(), before, strict=True)])
        aliased.append(written)
    return {"writes_to_grads": writes, "grads_written_by_any_alias": aliased}
