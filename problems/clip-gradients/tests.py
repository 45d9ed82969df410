"""Tests for clip-gradients.

Gradients are attached to fresh parameters, clipped by the solution, and the clipped gradients are
returned with the norm it reports. One case counts calls to the built-in clipping utilities.
"""

import contextlib

import torch
import torch.nn.utils
import torch.nn.utils.clip_grad

from runner.testing import case


def params_with_grads(grads):
    """One parameter per entry; None gives a parameter that has no .grad."""
    params = []
    for g in grads:
        p = torch.nn.Parameter(torch.zeros(g.shape if g is not None else (3,)))
        if g is not None:
            p.grad = g.clone()
        params.append(p)
    return params


def random_grads(seed, shapes, scale=1.0):
    gen = torch.Generator().manual_seed(seed)
    return [torch.randn(s, generator=gen) * scale for s in shapes]


def norm_result(solution, grads, max_norm):
    params = params_with_grads(grads)
    total = solution.clip_grad_norm(params, max_norm)
    return {
        "total_norm": total,
        "dtype": str(total.dtype),
        "grads": [p.grad for p in params],
    }


@case(public=True)
def example(solution):
    params = params_with_grads([torch.tensor([3.0, 4.0]), torch.tensor([[0.0, 12.0]])])
    total = solution.clip_grad_norm(params, 6.5)
    return {"total_norm": total.item(), "grads": [p.grad.tolist() for p in params]}


@case
def random_grads_clipped(solution):
    return norm_result(solution, random_grads(1, [(4, 3), (3,), (2, 2, 2)], scale=3.0), 1.0)


@case
def below_max_norm_unchanged(solution):
    return norm_result(solution, random_grads(2, [(5,), (2, 3)], scale=0.1), 10.0)


@case
def many_parameters(solution):
    return norm_result(solution, random_grads(3, [(i + 1, 2) for i in range(12)]), 0.5)


@case
def large_magnitudes(solution):
    return norm_result(solution, random_grads(4, [(3, 3), (4,)], scale=1e4), 2.0)


@case
def parameters_without_grad_skipped(solution):
    grads = random_grads(5, [(3,), (2, 2)], scale=2.0)
    params = params_with_grads([grads[0], None, grads[1], None])
    total = solution.clip_grad_norm(params, 1.0)
    return {"total_norm": total, "grads": [p.grad for p in params]}


@case
def no_gradient_at_all(solution):
    params = params_with_grads([None, None])
    total = solution.clip_grad_norm(params, 1.0)
    return {"total_norm": total, "grads": [p.grad for p in params]}


@case
def accepts_a_generator(solution):
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.Tanh(), torch.nn.Linear(4, 2))
    gen = torch.Generator().manual_seed(6)
    model(torch.randn(5, 3, generator=gen)).pow(2).sum().backward()
    total = solution.clip_grad_norm(model.parameters(), 0.3)
    return {"total_norm": total, "grads": [p.grad for p in model.parameters()]}


@case
def clip_by_value(solution):
    grads = random_grads(7, [(4, 4), (6,)], scale=2.0)
    params = params_with_grads([grads[0], None, grads[1]])
    result = solution.clip_grad_value(params, 0.75)
    return {"returns": result, "grads": [p.grad for p in params]}


@case
def clip_by_value_asymmetric_data(solution):
    params = params_with_grads([torch.tensor([-5.0, -0.5, 0.0, 0.5, 5.0])])
    solution.clip_grad_value(params, 1.0)
    return params[0].grad


FORBIDDEN = (
    "clip_grad_norm_",
    "clip_grad_value_",
    "clip_grad_norm",
    "clip_grad_value",
    "clip_grads_with_norm_",
    "get_total_norm",
)


@contextlib.contextmanager
def counting_builtin_clipping(solution, calls):
    """Wrap the built-in clipping functions (in torch and in the solution's namespace)."""
    patched = []
    originals = {}
    for module in (torch.nn.utils, torch.nn.utils.clip_grad):
        for name in FORBIDDEN:
            if hasattr(module, name):
                originals.setdefault(getattr(module, name), name)
    spaces = [torch.nn.utils, torch.nn.utils.clip_grad, solution]
    for space in spaces:
        for attr, value in list(vars(space).items()):
            if callable(value) and value in originals:

                def counting(*args, _f=value, **kwargs):
                    calls.append(originals[_f])
                    return _f(*args, **kwargs)

                setattr(space, attr, counting)
                patched.append((space, attr, value))
    try:
        yield
    finally:
        for space, attr, value in patched:
            setattr(space, attr, value)


@case
def no_builtin_clipping(solution):
    calls = []
    grads = random_grads(8, [(3, 2), (4,)], scale=3.0)
    with counting_builtin_clipping(solution, calls):
        solution.clip_grad_norm(params_with_grads(grads), 1.0)
        solution.clip_grad_value(params_with_grads(grads), 0.5)
    return {"builtin_calls": len(calls)}
