# rule: input-not-modified
# kind: cheat
# Writes the caller's x through `.data` (a version counter of its own) and back: bit for bit
# the same afterwards, and no counter of the caller's tensors moved.
from collections.abc import Callable

import torch


def vector_jacobian_product(
    f: Callable[[torch.Tensor], torch.Tensor], x: torch.Tensor, v: torch.Tensor
) -> torch.Tensor:
    # A private leaf: the caller's tensor keeps its requires_grad flag and gets no .grad.
    x.data.mul_(2.0)
    x.data.mul_(0.5)
    x = x.detach().requires_grad_(True)
    y = f(x)
    (vjp,) = torch.autograd.grad(y, x, grad_outputs=v)
    return vjp
