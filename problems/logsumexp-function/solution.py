import torch


class LogSumExp(torch.autograd.Function):
    """log(sum(exp(x), dim)) computed with the max shift; backward is softmax times grad."""

    @staticmethod
    def forward(ctx, x: torch.Tensor, dim: int) -> torch.Tensor:
        # Shift by the max of each slice so every exponent is <= 0: no overflow, and the largest
        # term is exactly 1, so the sum is never 0 (no log(0) underflow either).
        m = x.amax(dim=dim, keepdim=True)
        out = (m + (x - m).exp().sum(dim=dim, keepdim=True).log()).squeeze(dim)
        ctx.dim = dim
        ctx.save_for_backward(x, out)
        return out

    @staticmethod
    def backward(ctx, grad_output: torch.Tensor) -> tuple[torch.Tensor, None]:
        x, out = ctx.saved_tensors
        softmax = (x - out.unsqueeze(ctx.dim)).exp()
        return grad_output.unsqueeze(ctx.dim) * softmax, None


def logsumexp(x: torch.Tensor, dim: int) -> torch.Tensor:
    return LogSumExp.apply(x, dim)
