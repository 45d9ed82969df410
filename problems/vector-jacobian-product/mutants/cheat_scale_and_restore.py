# rule: input-not-modified
# kind: cheat
# Scales the caller's x by a power of two in place and back: bit for bit the same afterwards.
from collections.abc import Callable

import torch


def vector_jacobian_product(
    f: Callable[[torch.Tensor], torch.Tensor], x: torch.Tensor, v: torch.Tensor
) -> torch.Tensor:
    # A private leaf: the caller's tensor keeps its requires_grad flag and gets no .grad.
    x.mul_(2.0)
    x.mul_(0.5)
    x = x.detach().requires_grad_(True)
    y = f(x)
    (vjp,) = torch.autograd.grad(y, x, grad_outputs=v)
    return vjp
