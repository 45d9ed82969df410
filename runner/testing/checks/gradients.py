"""Gradient checks (in the sandbox): a learner's backward against finite differences, in float64.

``check_gradients(fn, *args)`` accepts a function, an ``nn.Module`` (its parameters are checked too)
or a ``torch.autograd.Function`` subclass. Floating-point tensor arguments are copied to float64 and
differentiated. The value compared on the host is the output and the *analytic* gradients of a fixed
random projection of it (``sum(output * v)``, ``v`` drawn from ``seed``): a learner cannot know the
reference's numbers, so a pass needs a right backward. The finite-difference error per input and
``torch.autograd.gradcheck``'s verdict only word the message (and validation requires the reference
to pass them: ``compared["holds"]``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from runner.records.check_value import CheckValue
from runner.testing.checks.arguments import argument_names, index_of

EPS = 1e-6


def _as_tuple(out: Any) -> tuple[Any, ...]:
    return tuple(out) if isinstance(out, tuple | list) else (out,)


def _worst(analytic: Any, numerical: Any) -> dict[str, Any]:
    """Largest |analytic - numerical| and where (None analytic counts as zero)."""
    import torch

    if numerical.numel() == 0:
        return {"max_abs_error": 0.0, "index": [], "missing": analytic is None}
    diff = ((analytic if analytic is not None else torch.zeros_like(numerical)) - numerical).abs()
    flat = int(torch.argmax(diff.reshape(-1)).item())
    index = index_of(flat, numerical.shape)
    return {"max_abs_error": float(diff.max().item()), "index": index, "missing": analytic is None}


def _numerical(scalar: Callable[..., Any], point: Sequence[Any], eps: float) -> list[Any]:
    """Central differences of ``scalar`` at ``point``, one tensor per entry of ``point``."""
    import torch

    base = [p.detach().clone() for p in point]
    grads = []
    for p in base:
        grad = torch.zeros_like(p)
        flat, grad_flat = p.reshape(-1), grad.reshape(-1)
        for i in range(flat.numel()):
            original = flat[i].item()
            flat[i] = original + eps
            plus = float(scalar(*base))
            flat[i] = original - eps
            minus = float(scalar(*base))
            flat[i] = original
            grad_flat[i] = (plus - minus) / (2 * eps)
        grads.append(grad)
    return grads


def check_gradients(
    fn: Any,
    *args: Any,
    names: Sequence[str] | None = None,
    constraint: str = "",
    second_order: bool = False,
    seed: int = 0,
    atol: float = 1e-5,
    rtol: float = 1e-3,
) -> CheckValue:
    """Differentiate ``fn(*args)`` analytically and by finite differences; return the check's value.

    ``names`` name the arguments in messages (default: the parameter names of ``fn``); a module's
    parameters are named as in ``named_parameters()``. ``second_order=True`` also checks second
    derivatives (``torch.autograd.gradgradcheck``). ``atol``/``rtol`` bound the finite-difference
    error the reference must stay within; the learner's gradients are compared with the reference's
    using the case's tolerances.
    """
    import torch
    from torch.func import functional_call

    module = fn if isinstance(fn, torch.nn.Module) else None
    call = fn.apply if isinstance(fn, type) and issubclass(fn, torch.autograd.Function) else fn
    arg_names = list(names) if names is not None else argument_names(fn, len(args))
    args_now = [
        a.detach().to(torch.float64).requires_grad_(True)
        if isinstance(a, torch.Tensor) and a.is_floating_point()
        else a
        for a in args
    ]
    slots = [i for i, a in enumerate(args_now) if isinstance(a, torch.Tensor) and a.requires_grad]
    params: dict[str, Any] = {}
    if module is not None:
        module.to(torch.float64)
        params = {n: p for n, p in module.named_parameters() if p.requires_grad}
    wrt_names = [arg_names[i] for i in slots] + list(params)
    wrt = [args_now[i] for i in slots] + list(params.values())

    def forward(*point: Any) -> tuple[Any, ...]:
        call_args = list(args_now)
        for slot, value in zip(slots, point, strict=False):
            call_args[slot] = value
        if module is not None:
            return _as_tuple(
                functional_call(module, dict(zip(params, point[len(slots) :], strict=True)), tuple(call_args))
            )
        return _as_tuple(call(*call_args))

    outputs = [o for o in forward(*wrt) if isinstance(o, torch.Tensor)]
    generator = torch.Generator().manual_seed(seed)
    directions = [torch.randn(o.shape, generator=generator, dtype=torch.float64) for o in outputs]

    def projected(*point: Any) -> Any:
        outs = [o for o in forward(*point) if isinstance(o, torch.Tensor)]
        return sum(
            ((o.to(torch.float64) * v).sum() for o, v in zip(outs, directions, strict=True)),
            torch.zeros((), dtype=torch.float64),
        )

    analytic = torch.autograd.grad(projected(*wrt), wrt, allow_unused=True, create_graph=second_order)
    with torch.no_grad():
        numerical = _numerical(projected, wrt, EPS)
    errors = {n: _worst(g, num) for n, g, num in zip(wrt_names, analytic, numerical, strict=True)}
    within = all(
        e["max_abs_error"] <= atol + rtol * float(num.abs().max().item() if num.numel() else 0.0)
        for e, num in zip(errors.values(), numerical, strict=True)
    )
    passes = torch.autograd.gradcheck(
        lambda *point: forward(*point), tuple(wrt), eps=EPS, atol=atol, rtol=rtol, raise_exception=False
    )
    compared: dict[str, Any] = {
        "output": outputs[0].detach() if len(outputs) == 1 else [o.detach() for o in outputs],
        "gradients": {n: None if g is None else g.detach() for n, g in zip(wrt_names, analytic, strict=True)},
    }
    seen: dict[str, Any] = {"inputs": errors, "gradcheck": bool(passes)}
    holds = bool(passes) and within
    if second_order:
        second, second_errors, second_passes = _second_order(
            forward, projected, wrt, wrt_names, seed, atol, rtol
        )
        compared["second_order"] = second
        seen["second_order"] = second_errors
        seen["gradgradcheck"] = second_passes
        holds = holds and second_passes
    compared["holds"] = holds
    return CheckValue("gradients", constraint, compared, seen)


def _second_order(
    forward: Callable[..., Any],
    projected: Callable[..., Any],
    wrt: list[Any],
    wrt_names: list[str],
    seed: int,
    atol: float,
    rtol: float,
) -> tuple[dict[str, Any], dict[str, Any], bool]:
    """Second derivatives of the projection, analytic and by finite differences of the first ones."""
    import torch

    generator = torch.Generator().manual_seed(seed + 1)
    directions = [torch.randn(w.shape, generator=generator, dtype=torch.float64) for w in wrt]

    def first_projected(*point: Any) -> Any:
        with torch.enable_grad():
            leaves = [p.detach().requires_grad_(True) for p in point]
            grads = torch.autograd.grad(projected(*leaves), leaves, allow_unused=True, create_graph=True)
            total = torch.zeros((), dtype=torch.float64)
            for g, u in zip(grads, directions, strict=True):
                if g is not None:
                    total = total + (g * u).sum()
            return total, leaves

    total, leaves = first_projected(*wrt)
    analytic = (
        torch.autograd.grad(total, leaves, allow_unused=True)
        if total.requires_grad
        else (None,) * len(leaves)
    )
    numerical = _numerical(lambda *p: first_projected(*p)[0].detach(), wrt, EPS)
    errors = {n: _worst(g, num) for n, g, num in zip(wrt_names, analytic, numerical, strict=True)}
    passes = torch.autograd.gradgradcheck(
        lambda *point: forward(*point), tuple(wrt), eps=EPS, atol=atol, rtol=rtol, raise_exception=False
    )
    values = {n: None if g is None else g.detach() for n, g in zip(wrt_names, analytic, strict=True)}
    return values, errors, bool(passes)
