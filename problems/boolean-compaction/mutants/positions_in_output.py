import torch


def compact_rows(x, mask):
    rows = x[mask]
    return rows, torch.arange(rows.shape[0])  # positions in the result, not the original row numbers
