import torch


def inverse_permutation(perm):
    inv = torch.empty_like(perm)
    # Correct for one permutation; for a batch, perm indexes the ROWS of inv.
    inv[perm] = torch.arange(perm.shape[-1])
    return inv
