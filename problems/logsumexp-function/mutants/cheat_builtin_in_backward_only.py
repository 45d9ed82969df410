# rule: no-builtin-logsumexp
# kind: cheat
# The built-in only in backward, which the autograd engine runs: the function-level watch never
# sees it there, the dispatch level does.
import torch


class LogSumExp(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x: torch.Tensor, dim: int) -> torch.Tensor:
        m = x.amax(dim=dim, keepdim=True)
        out = (m + (x - m).exp().sum(dim=dim, keepdim=True).log()).squeeze(dim)
        ctx.dim = dim
        ctx.save_for_backward(x)
        return out

    @staticmethod
    def backward(ctx, grad_output: torch.Tensor) -> tuple[torch.Tensor, None]:
        (x,) = ctx.saved_tensors
        softmax = (x - torch.logsumexp(x, ctx.dim, keepdim=True)).exp()
        return grad_output.unsqueeze(ctx.dim) * softmax, None


def logsumexp(x: torch.Tensor, dim: int) -> torch.Tensor:
    return LogSumExp.apply(x, dim)
