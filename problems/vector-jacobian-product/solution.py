from collections.abc import Callable

import torch


def vector_jacobian_product(
    f: Callable[[torch.Tensor], torch.Tensor], x: torch.Tensor, v: torch.Tensor
) -> torch.Tensor:
    # A private leaf: the caller's tensor keeps its requires_grad flag and gets no .grad.
    x = x.detach().requires_grad_(True)
    y = f(x)
    (vjp,) = torch.autograd.grad(y, x, grad_outputs=v)
    return vjp
