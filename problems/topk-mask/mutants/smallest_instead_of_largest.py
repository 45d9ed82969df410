import torch


def topk_mask(scores, k):
    order = torch.sort(scores, dim=-1, stable=True).indices  # ascending: the k smallest
    return torch.zeros_like(scores, dtype=torch.bool).scatter_(-1, order[..., :k], True)
