# rule: vectorised
# kind: cheat
# Takes every element into Python with one Tensor.apply_ call (a callback per element, no tolist),
# then loops over rows and elements in Python: the operation count does not grow.
import torch


def inverse_permutation(perm: torch.Tensor) -> torch.Tensor:
    values = []

    def take(v):
        values.append(v)
        return v

    perm.clone().apply_(take)  # every element reaches Python, one call
    n = perm.shape[-1]
    out = []
    for start in range(0, len(values), max(n, 1)):  # a Python loop over rows and elements
        row = values[start : start + n]
        inv = [0] * n
        for i, p in enumerate(row):
            inv[p] = i
        out.extend(inv)
    return torch.tensor(out, dtype=perm.dtype).reshape(perm.shape)
