import torch


class BinarizeSTE(torch.autograd.Function):
    """sign(x) forward (0 -> +1); the clipped straight-through gradient backward."""

    @staticmethod
    def forward(ctx, x: torch.Tensor) -> torch.Tensor:
        ctx.save_for_backward(x)
        return torch.where(x >= 0, 1.0, -1.0).to(x.dtype)

    @staticmethod
    def backward(ctx, grad_output: torch.Tensor) -> torch.Tensor:
        (x,) = ctx.saved_tensors
        # Pretend the forward was the identity, but only where |x| <= 1: outside, a larger |x| cannot
        # change the sign, so the gradient is cancelled (the "hard tanh" estimator).
        return grad_output * (x.abs() <= 1).to(grad_output.dtype)


def binarize_ste(x: torch.Tensor) -> torch.Tensor:
    return BinarizeSTE.apply(x)
