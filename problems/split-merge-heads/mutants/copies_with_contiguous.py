# rule: split-is-a-view
import torch


def split_heads(x, num_heads):
    b, t, d = x.shape
    if d % num_heads != 0:
        raise ValueError("not divisible")
    return x.reshape(b, t, num_heads, d // num_heads).transpose(1, 2).contiguous()  # always a copy


def merge_heads(x):
    b, h, t, dh = x.shape
    return x.transpose(1, 2).reshape(b, t, h * dh)
