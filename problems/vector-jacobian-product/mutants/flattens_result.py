from collections.abc import Callable

import torch


def vector_jacobian_product(
    f: Callable[[torch.Tensor], torch.Tensor], x: torch.Tensor, v: torch.Tensor
) -> torch.Tensor:
    # Thinks of the VJP as a flat vector, as in the textbook formula, and returns it flat.
    x = x.detach().requires_grad_(True)
    (g,) = torch.autograd.grad(f(x), x, grad_outputs=v)
    return g.reshape(-1)
