# rule: custom-function
import torch


def binarize_ste(x):
    # The "x + (q - x).detach()" trick: the gradient is never zeroed outside [-1, 1], and no
    # autograd.Function is written.
    q = torch.where(x >= 0, 1.0, -1.0).to(x.dtype)
    return x + (q - x).detach()
