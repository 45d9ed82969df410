import torch


def padding_mask(lengths, max_len=None):
    if max_len is None:
        max_len = int(lengths.max()) if lengths.numel() > 0 else 0
    return (torch.arange(max_len)[None, :] < lengths[:, None]).long()  # 0/1 integers, not booleans
