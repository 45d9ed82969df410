"""Optimizer checks (in the sandbox): a learner's optimizer over several steps, against ``torch.optim``.

``check_optimizer(make, against=functools.partial(torch.optim.SGD, lr=0.1))`` builds three small
parameters — ``weight`` and ``bias`` in the loss, ``frozen`` handed to the optimizer but never in the
loss (its ``.grad`` stays None) — and runs ``steps`` steps of a fixed quadratic loss. Compared on the
host with the reference's run: the parameters after every step, the first changed index of ``frozen``,
and what ``step()`` modified besides parameters and state (a gradient updated in place, a
hyper-parameter overwritten). The same steps with ``against`` give, in the learner's run, the first
deviation from ``torch.optim`` for the message; validation requires the reference to have none.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from runner.records.check_value import CheckValue
from runner.testing.checks.arguments import index_of

DEVIATION_ATOL = 1e-6


def _parameters(seed: int) -> dict[str, Any]:
    import torch

    generator = torch.Generator().manual_seed(seed)
    return {
        "weight": torch.nn.Parameter(torch.randn(3, 2, generator=generator)),
        "bias": torch.nn.Parameter(torch.randn(2, generator=generator)),
        "frozen": torch.nn.Parameter(torch.randn(2, generator=generator)),
    }


def _loss(params: dict[str, Any]) -> Any:
    import torch

    total = torch.zeros(())
    for name in ("weight", "bias"):
        p = params[name]
        curvature = torch.linspace(0.5, 2.0, p.numel()).reshape(p.shape)
        total = total + (curvature * p**2).sum() + p.sum()
    return total


def _run(
    make: Callable[[list[Any]], Any], steps: int, seed: int, set_to_none: bool
) -> tuple[list[dict[str, Any]], list[Any], Any]:
    """Parameters after each step, what step() modified besides them, and ``frozen``'s final value."""
    import torch

    params = _parameters(seed)
    optimizer = make(list(params.values()))
    trajectory, mutated = [], []
    for step in range(1, steps + 1):
        optimizer.zero_grad(set_to_none=set_to_none)
        _loss(params).backward()
        grads = {n: p.grad.detach().clone() for n, p in params.items() if p.grad is not None}
        hyper = [
            {k: v for k, v in group.items() if isinstance(v, int | float)} for group in optimizer.param_groups
        ]
        optimizer.step()
        for name, before in grads.items():
            grad = params[name].grad
            if grad is None or not torch.equal(grad, before):
                mutated.append({"step": step, "what": f"the gradient of `{name}`"})
        for g, (group, before_group) in enumerate(zip(optimizer.param_groups, hyper, strict=False)):
            for key, value in before_group.items():
                if group.get(key) != value:
                    mutated.append({"step": step, "what": f"param_groups[{g}][{key!r}]"})
        trajectory.append({n: p.detach().clone() for n, p in params.items()})
    return trajectory, mutated, params["frozen"]


def _describe(factory: Any) -> str:
    if isinstance(factory, functools.partial):
        args = ", ".join(f"{k}={v!r}" for k, v in factory.keywords.items())
        return f"torch.optim.{getattr(factory.func, '__name__', 'optimizer')}({args})"
    return getattr(factory, "__name__", "the reference optimizer")


def check_optimizer(
    make: Callable[[list[Any]], Any],
    *,
    against: Callable[[list[Any]], Any] | None = None,
    steps: int = 5,
    seed: int = 0,
    set_to_none: bool = False,
    constraint: str = "",
) -> CheckValue:
    """Run ``steps`` steps with ``make(params)``'s optimizer; compare its trajectory on the host.

    Gradients are zeroed in place between steps by default (``zero_grad(set_to_none=False)``), so a
    momentum buffer that aliases ``p.grad`` instead of copying it shows up as a modified gradient.
    """
    import torch

    trajectory, mutated, frozen = _run(make, steps, seed, set_to_none)
    initial = _parameters(seed)["frozen"]
    changed = (frozen.detach() != initial.detach()).nonzero()
    frozen_index = [int(i) for i in changed[0]] if changed.numel() else None
    deviation = None
    if against is not None:
        expected, _, _ = _run(against, steps, seed, set_to_none)
        for step, (mine, theirs) in enumerate(zip(trajectory, expected, strict=True), start=1):
            for name in ("weight", "bias"):
                diff = (mine[name] - theirs[name]).abs()
                if float(diff.max()) > DEVIATION_ATOL:
                    flat = int(torch.argmax(diff.reshape(-1)))
                    index = index_of(flat, diff.shape)
                    deviation = {
                        "step": step,
                        "param": name,
                        "max_abs_error": float(diff.max()),
                        "index": index,
                    }
                    break
            if deviation:
                break
    compared = {
        "trajectory": trajectory,
        "without_grad": {"frozen": frozen_index},
        "mutated": mutated,
        "holds": deviation is None and not mutated and frozen_index is None,
    }
    seen = {"deviation": deviation, "against": _describe(against) if against is not None else ""}
    return CheckValue("optimizer", constraint, compared, seen)
