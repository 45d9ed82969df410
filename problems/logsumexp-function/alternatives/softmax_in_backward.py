import torch


class LogSumExp(torch.autograd.Function):
    """The max through torch.max, infinities guarded, and torch.softmax in backward."""

    @staticmethod
    def forward(ctx, x: torch.Tensor, dim: int) -> torch.Tensor:
        m = torch.max(x, dim=dim, keepdim=True).values
        m = torch.where(torch.isinf(m), torch.zeros_like(m), m)
        out = (m + (x - m).exp().sum(dim=dim, keepdim=True).log()).squeeze(dim)
        ctx.dim = dim
        ctx.save_for_backward(x)
        return out

    @staticmethod
    def backward(ctx, grad_output: torch.Tensor) -> tuple[torch.Tensor, None]:
        (x,) = ctx.saved_tensors
        return grad_output.unsqueeze(ctx.dim) * torch.softmax(x, ctx.dim), None


def logsumexp(x: torch.Tensor, dim: int) -> torch.Tensor:
    return LogSumExp.apply(x, dim)
