# rule: own-backward
# kind: cheat
# Leaves whatever dual level is open, derives by forward_ad at its own, and opens one again.
import torch
import torch.autograd.forward_ad as fwad


def _lse(x, dim):
    m = x.amax(dim=dim, keepdim=True).detach()
    return (m + (x - m).exp().sum(dim=dim, keepdim=True).log()).squeeze(dim)


def _basis(x, i):
    t = torch.zeros(x.numel(), dtype=x.dtype)
    t[i] = 1
    return t.reshape(x.shape)


def _derive(x, g, dim):
    reopen = False
    try:
        fwad.exit_dual_level(level=0)
        reopen = True
    except RuntimeError:
        pass
    grad = torch.zeros(x.numel(), dtype=x.dtype)
    with fwad.dual_level():
        for i in range(x.numel()):
            _, tangent = fwad.unpack_dual(_lse(fwad.make_dual(x, _basis(x, i)), dim))
            grad[i] = (tangent * g).sum()
    if reopen:
        fwad.enter_dual_level()
    return grad.reshape(x.shape)


class LogSumExp(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, dim):
        ctx.dim = dim
        ctx.save_for_backward(x)
        return _lse(x, dim)

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return _derive(x, grad_output, ctx.dim), None


def logsumexp(x, dim):
    return LogSumExp.apply(x, dim)
