# rule: no-copy
# kind: cheat
# A copy made to look like a view: unfold a clone, so shapes and strides are a view's; only the
# storage is not x's.
import torch


def sliding_windows(x, k, s):
    if x.shape[-1] >= k:
        return x.clone().unfold(-1, k, s)
    step = x.stride(-1)
    return x.as_strided((*x.shape[:-1], 0, k), (*x.stride()[:-1], s * step, step))
