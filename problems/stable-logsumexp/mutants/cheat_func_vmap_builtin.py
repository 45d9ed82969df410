# rule: no-builtin-logsumexp
# kind: cheat
# The built-in reached through a functional transform (torch.func) and a method name.
import torch


def stable_logsumexp(x, dim):
    moved = x.movedim(dim, 0)
    return torch.func.vmap(lambda column: column.logsumexp(0), in_dims=1, out_dims=-1)(moved).reshape(
        [s for i, s in enumerate(x.shape) if i != (dim % x.dim())]
    )
