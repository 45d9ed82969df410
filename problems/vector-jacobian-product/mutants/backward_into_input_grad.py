# rule: input-not-modified
from collections.abc import Callable

import torch


def vector_jacobian_product(
    f: Callable[[torch.Tensor], torch.Tensor], x: torch.Tensor, v: torch.Tensor
) -> torch.Tensor:
    # Turns the caller's tensor into a leaf that requires grad and fills its .grad.
    x.requires_grad_(True)
    f(x).backward(v)
    return x.grad
