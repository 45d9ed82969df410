import torch


def tile_view(x, n):
    return x.unsqueeze(0).expand(n, *x.shape).contiguous()  # contiguous() materialises the copies
