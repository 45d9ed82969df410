import torch


def inverse_permutation(perm):
    n = perm.shape[-1]
    inv = torch.zeros(perm.shape)  # float32 by default
    return inv.scatter_(-1, perm, torch.arange(n, dtype=torch.float32).expand_as(perm))
