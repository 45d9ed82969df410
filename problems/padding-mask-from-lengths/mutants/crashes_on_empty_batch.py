import torch


def padding_mask(lengths, max_len=None):
    if max_len is None:
        max_len = int(lengths.max())  # max() of an empty tensor raises
    return torch.arange(max_len)[None, :] < lengths[:, None]
