"""Tests for vector-jacobian-product.

Functions with square, wide, tall and scalar Jacobians, several shapes and dtypes, an output that
ignores part of the input, the caller's tensor left untouched, no full Jacobian built, and the work
level in the size of x (assert_vectorised).
"""

import torch

from runner.testing import assert_vectorised, case, writes_during

ONE_PASS = (
    "One backward pass gives the product: the work must not grow with the size of `x`, as a loop over its "
    "elements would."
)

RTOL = 1e-5
ATOL = 1e-6


def _example(x):
    return torch.stack([x[0] * x[1], x[1] + x[2] ** 2])


def _gen(seed):
    return torch.Generator().manual_seed(seed)


def _described(out):
    return {"value": out, "dtype": str(out.dtype), "shape": list(out.shape)}


@case(public=True, rtol=RTOL, atol=ATOL)
def example(solution):
    x = torch.tensor([1.0, 2.0, 3.0])
    v = torch.tensor([1.0, -1.0])
    return solution.vector_jacobian_product(_example, x, v)


@case(rtol=RTOL, atol=ATOL)
def elementwise_sin(solution):
    g = _gen(1)
    x = torch.randn(5, generator=g)
    v = torch.randn(5, generator=g)
    return _described(solution.vector_jacobian_product(torch.sin, x, v))


@case(rtol=RTOL, atol=ATOL)
def matrix_times_x_wide_and_tall(solution):
    g = _gen(2)
    out = []
    for rows, cols in [(2, 6), (7, 3), (1, 1)]:
        a = torch.randn(rows, cols, generator=g)
        x = torch.randn(cols, generator=g)
        v = torch.randn(rows, generator=g)
        out.append(_described(solution.vector_jacobian_product(lambda t, a=a: a @ t, x, v)))
    return out


@case(rtol=RTOL, atol=ATOL)
def softmax_over_rows_of_a_matrix(solution):
    # 2-D input and output: v and the result are matrices, not vectors.
    g = _gen(3)
    x = torch.randn(3, 4, generator=g)
    v = torch.randn(3, 4, generator=g)
    return _described(solution.vector_jacobian_product(lambda t: torch.softmax(t, dim=1), x, v))


@case(rtol=RTOL, atol=ATOL)
def scalar_output(solution):
    # y is a 0-d tensor: v is a 0-d tensor too, and the VJP is v times the gradient.
    g = _gen(4)
    x = torch.randn(2, 3, generator=g)
    v = torch.tensor(2.5)
    return _described(solution.vector_jacobian_product(lambda t: (t**3).sum(), x, v))


@case(rtol=RTOL, atol=ATOL)
def output_uses_part_of_the_input(solution):
    # Entries of x that f ignores get a zero gradient.
    g = _gen(5)
    x = torch.randn(6, generator=g)
    v = torch.randn(2, generator=g)
    return _described(solution.vector_jacobian_product(lambda t: t[1:3] * t[1:3].exp(), x, v))


@case(rtol=1e-10, atol=1e-12)
def float64_stays_float64(solution):
    g = _gen(6)
    x = torch.randn(4, dtype=torch.float64, generator=g)
    v = torch.randn(3, dtype=torch.float64, generator=g)
    return _described(
        solution.vector_jacobian_product(lambda t: torch.stack([t.prod(), t.norm(), t[0] / t[3]]), x, v)
    )


@case(rtol=RTOL, atol=ATOL)
def ladder_of_sizes(solution):
    g = _gen(7)
    out = []
    for n in [1, 8, 64, 512]:
        x = torch.randn(n, generator=g)
        v = torch.randn(n, generator=g)
        out.append(solution.vector_jacobian_product(lambda t: torch.tanh(t) * t.sum(), x, v))
    return out


@case(rule="input-not-modified")
def input_left_untouched(solution):
    x = torch.tensor([0.5, -1.0, 2.0])
    before = x.clone()
    version = x._version  # modify-and-restore moves it
    # `.data` has a version counter of its own: the watch sees a write through any alias.
    _, written = writes_during(lambda: solution.vector_jacobian_product(_example, x, torch.tensor([2.0, 1.0])), x)
    return {
        "written_by_any_alias": written,
        "x": x,
        "writes": x._version - version,
        "values_unchanged": bool(torch.equal(x, before)),
        "requires_grad": x.requires_grad,
        "grad_is_none": x.grad is None,
    }


@case(rtol=RTOL, atol=ATOL, rule="no-full-jacobian")
def no_full_jacobian(solution):
    """Count calls to the full-Jacobian helpers while the solution runs (must be zero)."""
    import torch.autograd.functional as functional
    import torch.func

    calls = []
    originals = {
        (functional, "jacobian"): functional.jacobian,
        (torch.func, "jacrev"): torch.func.jacrev,
        (torch.func, "jacfwd"): torch.func.jacfwd,
    }

    def counting(name, original):
        def wrapper(*args, **kwargs):
            calls.append(name)
            return original(*args, **kwargs)

        return wrapper

    for (owner, name), original in originals.items():
        setattr(owner, name, counting(name, original))
    try:
        g = _gen(8)
        x = torch.randn(4, generator=g)
        out = solution.vector_jacobian_product(lambda t: t.cumsum(0), x, x.flip(0))
    finally:
        for (owner, name), original in originals.items():
            setattr(owner, name, original)
    return {"jacobian_calls": calls, "value": out}


@case(rtol=RTOL, atol=ATOL, rule="one-backward-pass")
def one_backward_pass(solution):
    """The tensor operations dispatched (backward included) at n = 8 and n = 64 must stay level."""

    def inputs(n):
        g = torch.Generator().manual_seed(n)
        return torch.randn(n, generator=g), torch.randn(n, generator=g)

    def vjp_of_tanh(args):
        return solution.vector_jacobian_product(torch.tanh, *args)

    return assert_vectorised(vjp_of_tanh, inputs, rule=ONE_PASS, sizes=(8, 64))
