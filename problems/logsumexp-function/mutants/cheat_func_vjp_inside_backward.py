# rule: own-backward
# kind: cheat
# A Function whose backward is torch.func.vjp of the forward: autograd derives it after all.
import torch


def _lse(x, dim):
    m = x.amax(dim=dim, keepdim=True).detach()
    return (m + (x - m).exp().sum(dim=dim, keepdim=True).log()).squeeze(dim)


class LogSumExp(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, dim):
        ctx.dim = dim
        ctx.save_for_backward(x)
        return _lse(x, dim)

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        _, pullback = torch.func.vjp(lambda t: _lse(t, ctx.dim), x)
        (g,) = pullback(grad_output)
        return g, None


def logsumexp(x, dim):
    return LogSumExp.apply(x, dim)
