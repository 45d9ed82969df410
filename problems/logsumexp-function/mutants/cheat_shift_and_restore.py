# rule: input-not-modified
# kind: cheat
# Shifts the caller's x by its max in place inside forward and adds it back before returning.
import torch


class LogSumExp(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, dim):
        m = x.amax(dim=dim, keepdim=True)
        x.sub_(m)
        out = (m + x.exp().sum(dim=dim, keepdim=True).log()).squeeze(dim)
        x.add_(m)
        ctx.dim = dim
        ctx.save_for_backward(x, out)
        return out

    @staticmethod
    def backward(ctx, grad_output):
        x, out = ctx.saved_tensors
        return grad_output.unsqueeze(ctx.dim) * (x - out.unsqueeze(ctx.dim)).exp(), None


def logsumexp(x, dim):
    return LogSumExp.apply(x, dim)
