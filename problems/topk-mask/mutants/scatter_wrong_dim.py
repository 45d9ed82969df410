import torch


def topk_mask(scores, k):
    order = torch.sort(scores, dim=-1, descending=True, stable=True).indices
    # dim=0: the column positions are written as ROW numbers.
    return torch.zeros_like(scores, dtype=torch.bool).scatter_(0, order[..., :k], True)
