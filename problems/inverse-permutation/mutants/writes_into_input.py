# rule: perm-not-modified
import torch


def inverse_permutation(perm):
    # Reuses the caller's tensor as the output buffer: right values, but perm is destroyed.
    index = perm.clone()
    return perm.scatter_(-1, index, torch.arange(perm.shape[-1]).expand_as(perm))
