"""Tests for clip-gradients.

Gradients are attached to fresh parameters, clipped by the solution, and the clipped gradients are
returned with the norm it reports. Rules (statement.md): ``no-builtin-clipping`` watches the calls and the fused kernels the built-in
utilities run; ``grad-in-place`` checks that each ``p.grad`` is the same tensor, on the same storage,
as before the call, through a view taken beforehand.
"""

import contextlib

import torch
import torch.nn.utils
import torch.nn.utils.clip_grad

from runner.testing import case, forbid_ops


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


# The kernels the built-in utilities run, whatever name reaches them (a learner's own code has no
# reason to call these private fused ops).
BUILTIN_KERNELS = {
    op: "Do not call the built-in clipping utilities (torch.nn.utils.clip_grad_norm_ and relatives)."
    for op in (
        "aten._foreach_norm",
        "aten._foreach_mul_",
        "aten._foreach_clamp_min_",
        "aten._foreach_clamp_max_",
    )
}


@case(rule="no-builtin-clipping")
def no_builtin_clipping(solution):
    calls = []
    grads = random_grads(8, [(3, 2), (4,)], scale=3.0)
    with counting_builtin_clipping(solution, calls), forbid_ops(BUILTIN_KERNELS):
        solution.clip_grad_norm(params_with_grads(grads), 1.0)
        solution.clip_grad_value(params_with_grads(grads), 0.5)
    return {"builtin_calls": len(calls)}


def kept_in_place(params, run):
    """Per present gradient: the same tensor object, the same storage, and a view taken before the
    call that sees the values after it (a replaced ``.data`` or ``set_`` moves the storage)."""
    before = [
        (p.grad, p.grad.view(-1), p.grad.untyped_storage().data_ptr()) for p in params if p.grad is not None
    ]
    run(params)
    present = [p for p in params if p.grad is not None]
    return {
        "count": len(present),
        "same_tensor": [p.grad is g for p, (g, _, _) in zip(present, before)],
        "same_storage": [
            p.grad.untyped_storage().data_ptr() == ptr for p, (_, _, ptr) in zip(present, before)
        ],
        "view_sees_result": [
            bool(torch.equal(view, p.grad.reshape(-1))) for p, (_, view, _) in zip(present, before)
        ],
    }


@case(rule="grad-in-place")
def clip_norm_keeps_grad_identity(solution):
    params = params_with_grads(random_grads(9, [(3, 4), (5,)], scale=4.0))
    return kept_in_place(params, lambda ps: solution.clip_grad_norm(iter(ps), 1.0))


@case(rule="grad-in-place")
def clip_value_keeps_grad_identity(solution):
    params = params_with_grads(random_grads(10, [(2, 6), (7,)], scale=4.0))
    return kept_in_place(params, lambda ps: solution.clip_grad_value(iter(ps), 0.25))
