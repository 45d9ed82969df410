import torch


def padding_mask(lengths, max_len=None):
    # Always pads to the longest sequence, even when the caller asks for a longer mask.
    max_len = int(lengths.max()) if lengths.numel() > 0 else 0
    return torch.arange(max_len)[None, :] < lengths[:, None]
