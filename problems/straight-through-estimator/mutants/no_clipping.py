import torch


class BinarizeSTE(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return torch.where(x >= 0, 1.0, -1.0).to(x.dtype)

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output  # passes the gradient everywhere, also where |x| > 1


def binarize_ste(x):
    return BinarizeSTE.apply(x)
