# rule: inputs-not-modified
# kind: cheat
# Flips the caller's mask in place to find the dropped rows, and flips it back.
import torch


def compact_rows(x, mask):
    mask.logical_not_()
    dropped = mask.clone()
    mask.logical_not_()
    (indices,) = torch.nonzero(~dropped, as_tuple=True)
    return x[indices], indices
