# rule: vectorised
import torch


def padding_mask(lengths, max_len=None):
    # right mask, one sequence at a time
    if max_len is None:
        max_len = int(lengths.max()) if lengths.numel() > 0 else 0
    mask = torch.zeros((lengths.shape[0], max_len), dtype=torch.bool)
    for b, length in enumerate(lengths.tolist()):
        mask[b, :length] = True
    return mask
