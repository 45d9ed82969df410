import torch


class LogSumExp(torch.autograd.Function):
    """log(sum(exp(x), dim)) without overflow, with a hand-written backward."""

    @staticmethod
    def forward(ctx, x: torch.Tensor, dim: int) -> torch.Tensor:
        # TODO: the max-shift trick; save what backward needs (tensors with ctx.save_for_backward)
        raise NotImplementedError("LogSumExp.forward is not implemented yet")

    @staticmethod
    def backward(ctx, grad_output: torch.Tensor):
        # TODO: one gradient per forward input: (gradient for x, None for dim)
        raise NotImplementedError("LogSumExp.backward is not implemented yet")


def logsumexp(x: torch.Tensor, dim: int) -> torch.Tensor:
    """Reduce `dim` of x (the dim is removed, as torch.logsumexp(x, dim) does)."""
    return LogSumExp.apply(x, dim)
