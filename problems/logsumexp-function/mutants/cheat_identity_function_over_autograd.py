# rule: own-backward
# kind: cheat
# The output's grad_fn is a Function's, but an identity one, wrapped around a graph autograd built:
# the backward is still derived by autograd.
import torch


class Identity(torch.autograd.Function):
    @staticmethod
    def forward(ctx, y):
        return y.view_as(y)

    @staticmethod
    def backward(ctx, grad):
        return grad


def logsumexp(x, dim):
    m = x.amax(dim=dim, keepdim=True).detach()
    y = (m + (x - m).exp().sum(dim=dim, keepdim=True).log()).squeeze(dim)
    return Identity.apply(y)
