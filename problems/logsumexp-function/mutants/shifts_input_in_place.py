# rule: input-not-modified
import torch


class LogSumExp(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, dim):
        m = x.amax(dim=dim, keepdim=True)
        shifted = x.sub_(m)  # shifts the caller's tensor in place to save memory
        out = (m + shifted.exp().sum(dim=dim, keepdim=True).log()).squeeze(dim)
        ctx.dim = dim
        ctx.save_for_backward(shifted, out - m.squeeze(dim))
        return out

    @staticmethod
    def backward(ctx, grad_output):
        shifted, shifted_out = ctx.saved_tensors
        return grad_output.unsqueeze(ctx.dim) * (shifted - shifted_out.unsqueeze(ctx.dim)).exp(), None


def logsumexp(x, dim):
    return LogSumExp.apply(x, dim)
