# rule: no-full-jacobian
from collections.abc import Callable

import torch


def vector_jacobian_product(
    f: Callable[[torch.Tensor], torch.Tensor], x: torch.Tensor, v: torch.Tensor
) -> torch.Tensor:
    # Right numbers, but materialises the whole (y.numel() x x.numel()) Jacobian first.
    jac = torch.autograd.functional.jacobian(f, x)
    jac = jac.reshape(v.numel(), x.numel())
    return (v.reshape(1, -1) @ jac).reshape(x.shape)
