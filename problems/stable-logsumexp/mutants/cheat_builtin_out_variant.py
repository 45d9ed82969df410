# rule: no-builtin-logsumexp
# kind: cheat
# The built-in's out= variant, written into a buffer the solution made.
import torch


def stable_logsumexp(x, dim):
    shape = list(x.shape)
    del shape[dim]
    out = torch.empty(shape, dtype=x.dtype)
    torch.logsumexp(x, dim, out=out)
    return out
