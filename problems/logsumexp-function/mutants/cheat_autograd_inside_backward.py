# rule: own-backward
# kind: cheat
# A Function whose backward re-runs the forward with gradients on and asks torch.autograd.grad:
# the grad_fn is its own, applied to x, but autograd derives the backward.
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
        with torch.enable_grad():
            leaf = x.detach().requires_grad_(True)
            out = _lse(leaf, ctx.dim)
            (g,) = torch.autograd.grad(out, leaf, grad_output)
        return g, None


def logsumexp(x, dim):
    return LogSumExp.apply(x, dim)
