import torch


def clip_grad_norm(parameters, max_norm: float) -> torch.Tensor:
    """Scale every present gradient by one common factor so that their *global* L2 norm is at
    most max_norm (gradients already small enough are left unchanged); parameters whose .grad is
    None are skipped. Works in place on p.grad and returns the global norm *before* clipping as a
    0-dim float tensor (tensor(0.) when no parameter has a gradient).
    """
    # TODO: total norm over all gradients, then one scale factor min(max_norm / (total + 1e-6), 1)
    raise NotImplementedError("clip_grad_norm is not implemented yet")


def clip_grad_value(parameters, clip_value: float) -> None:
    """Clamp every element of every present gradient into [-clip_value, clip_value], in place."""
    # TODO: clamp each p.grad in place
    raise NotImplementedError("clip_grad_value is not implemented yet")
