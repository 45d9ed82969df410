import torch


def sliding_windows(x, k, s):
    return x.unfold(-1, k, s)  # raises when the last dimension is shorter than k
