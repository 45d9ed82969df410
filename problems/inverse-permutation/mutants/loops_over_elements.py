# rule: vectorised
import torch


def inverse_permutation(perm):
    # right answer, one element at a time
    inverse = torch.empty_like(perm)
    rows = perm.reshape(-1, perm.shape[-1])
    out = inverse.reshape(-1, perm.shape[-1])
    for b in range(rows.shape[0]):
        for i in range(rows.shape[1]):
            out[b, rows[b, i]] = i
    return inverse
