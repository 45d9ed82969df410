"""Tests for straight-through-estimator.

Forward values (zeros included), the clipped straight-through gradient with random upstream
gradients, the exact boundary |x| == 1, dtype and shape (check_call), random families of inputs with
edge shapes (check_family), and that an autograd.Function is used.
"""

import torch

from runner.testing import case, check_call, check_family, tensor_samples

FORWARD = (
    "`forward`: $+1$ where `x >= 0` (zero included, and $-0.0$), $-1$ elsewhere, with the **dtype and "
    "shape of `x`**;"
)
SHAPE_DTYPE = "A tensor with the shape and dtype of `x`, whose values are $\\pm 1$"


def _run(solution, x, upstream):
    x = x.clone().requires_grad_(True)
    y = solution.binarize_ste(x)
    (y * upstream).sum().backward()
    return {"output": y, "grad": x.grad, "dtype": str(y.dtype), "shape": list(y.shape)}


@case(public=True)
def example(solution):
    x = torch.tensor([-1.5, -0.3, 0.0, 0.7, 1.0, 2.0], requires_grad=True)
    y = solution.binarize_ste(x)
    y.sum().backward()
    return {"output": y.tolist(), "grad": x.grad.tolist()}


@case
def random_upstream_gradients(solution):
    g = torch.Generator().manual_seed(1)
    x = torch.randn(4, 5, generator=g) * 1.5
    return _run(solution, x, torch.randn(4, 5, generator=g))


@case
def exact_boundaries_and_zeros(solution):
    x = torch.tensor([-1.0, 1.0, 0.0, -0.0, 1.0000001, -1.0000001, 0.999999])
    return _run(solution, x, torch.arange(1.0, 8.0))


@case
def large_magnitudes_get_no_gradient(solution):
    x = torch.tensor([[-1e6, 1e6], [-3.0, 50.0]])
    return _run(solution, x, torch.ones(2, 2))


@case
def float64_in_float64_out(solution):
    g = torch.Generator().manual_seed(2)
    x = torch.randn(3, 3, dtype=torch.float64, generator=g)
    return _run(solution, x, torch.randn(3, 3, dtype=torch.float64, generator=g))


@case
def ladder_of_shapes(solution):
    g = torch.Generator().manual_seed(3)
    out = []
    for shape in [(1,), (2, 1, 3), (16, 32), (0, 4)]:
        x = torch.randn(*shape, generator=g) * 2
        out.append(_run(solution, x, torch.randn(*shape, generator=g)))
    return out


@case
def gradient_flows_to_earlier_layers(solution):
    # Used inside a network: the estimator's gradient reaches the weight that produced x.
    g = torch.Generator().manual_seed(4)
    w = torch.randn(3, 4, generator=g).requires_grad_(True)
    inputs = torch.randn(5, 3, generator=g)
    target = torch.randn(5, 4, generator=g)
    loss = ((solution.binarize_ste(inputs @ w) - target) ** 2).mean()
    loss.backward()
    return {"loss": loss.item(), "w_grad": w.grad}


@case(rule="custom-function")
def input_untouched_and_custom_function_used(solution):
    x = torch.tensor([0.5, -2.0, 0.0], requires_grad=True)
    y = solution.binarize_ste(x)
    return {
        "x": x.detach(),
        "x_grad_is_none": x.grad is None,
        "custom_function": isinstance(y.grad_fn, torch.autograd.function.BackwardCFunction),
        # the Function takes x's own accumulator: not an identity Function over the detach trick
        "applied_to_x": any(
            node is not None and getattr(node, "variable", None) is x for node, _ in y.grad_fn.next_functions
        ),
    }


@case
def random_family_forward(solution):
    """A ladder of sizes, a single row, an empty batch, magnitudes around 1e4 and ties (zeros)."""
    return check_family(solution.binarize_ste, tensor_samples(ndim=2, seed=4), constraint=FORWARD)


@case
def random_family_forward_float64(solution):
    return check_family(
        solution.binarize_ste, tensor_samples(ndim=3, seed=5, dtype=torch.float64), constraint=FORWARD
    )


@case
def input_left_alone_dtype_kept(solution):
    """float64 in, float64 out; x (with a -0.0) left alone."""
    x = torch.tensor([[0.5, -2.0, 0.0], [3.0, -0.0, -1.0]], dtype=torch.float64)
    return check_call(solution.binarize_ste, x, constraint=SHAPE_DTYPE, properties=("shape", "dtype"))
