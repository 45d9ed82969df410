from collections.abc import Callable

import torch


def vector_jacobian_product(
    f: Callable[[torch.Tensor], torch.Tensor], x: torch.Tensor, v: torch.Tensor
) -> torch.Tensor:
    """Return v^T J, where J is the Jacobian of f at x, without building J.

    f maps a tensor shaped like x to a tensor y; v has y's shape. The result has x's shape and
    dtype. Do not modify x (its requires_grad flag and .grad stay as they were).
    """
    # TODO: one call to torch.autograd.grad with grad_outputs
    raise NotImplementedError("vector_jacobian_product is not implemented yet")
