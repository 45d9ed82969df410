# rule: custom-function
# kind: cheat
# The detach trick (autograd derives the gradient), with an identity Function on top so grad_fn
# looks custom.
import torch


class Identity(torch.autograd.Function):
    @staticmethod
    def forward(ctx, y):
        return y.view_as(y)

    @staticmethod
    def backward(ctx, grad):
        return grad


def binarize_ste(x):
    hard = torch.where(x >= 0, 1.0, -1.0).to(x.dtype)
    soft = x.clamp(-1.0, 1.0)
    return Identity.apply(soft + (hard - soft).detach())
