import torch


def padding_mask(lengths, max_len=None):
    if max_len is None:
        max_len = int(lengths.max()) if lengths.numel() > 0 else 0
    # The unsqueezes are swapped: (max_len, 1) < (1, B) gives a (max_len, B) mask.
    return torch.arange(max_len)[:, None] < lengths[None, :]
