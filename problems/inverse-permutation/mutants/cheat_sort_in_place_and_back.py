# rule: perm-not-modified
# kind: cheat
# Sorts the caller's perm in place to read the inverse off the indices, then writes the original back.
import torch


def inverse_permutation(perm):
    saved = perm.clone()
    _, inv = perm.sort(dim=-1)
    perm.copy_(perm.sort(dim=-1).values)
    perm.copy_(saved)
    return inv
