import torch


def compact_rows(x, mask):
    return x[mask], torch.nonzero(mask)  # (k, 1): one column per dimension of mask
