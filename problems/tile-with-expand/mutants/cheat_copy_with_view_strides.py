# rule: no-copy
# kind: cheat
# A copy made to look like a view: one row of x's values in fresh memory, expanded with stride 0,
# so shape, strides and contiguity look right; only the storage is not x's.
import torch


def tile_view(x, n):
    return x.clone().expand(n, *x.shape)
