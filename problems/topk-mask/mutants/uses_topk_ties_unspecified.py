import torch


def topk_mask(scores, k):
    # torch.topk is right when scores are distinct, but picks any of several equal scores.
    idx = torch.topk(scores, k, dim=-1).indices
    return torch.zeros_like(scores, dtype=torch.bool).scatter_(-1, idx, True)
