# rule: inputs-not-modified
# Right rows and indices, but the dropped rows of the caller's x are zeroed on the way.
import torch


def compact_rows(x, mask):
    (indices,) = torch.nonzero(mask, as_tuple=True)
    x[~mask] = 0
    return x[indices], indices
