# rule: lengths-not-modified
# kind: cheat
# Reshapes the caller's lengths in place to a column and back: same shape and values afterwards.
import torch


def padding_mask(lengths, max_len=None):
    if max_len is None:
        max_len = int(lengths.max()) if lengths.numel() > 0 else 0
    lengths.unsqueeze_(1)
    mask = torch.arange(max_len)[None, :] < lengths
    lengths.squeeze_(1)
    return mask
