import torch


def topk_mask(scores, k):
    # The last k of an ascending stable sort are the k largest, but among ties it keeps the HIGHEST
    # indices (equal scores stay in index order, and the end of that order is taken).
    order = torch.sort(scores, dim=-1, stable=True).indices
    n = scores.shape[-1]
    return torch.zeros_like(scores, dtype=torch.bool).scatter_(-1, order[..., n - k :], True)
