# rule: scores-not-modified
# kind: cheat
# Negates the caller's scores in place to sort ascending, and negates them back: bit for bit the same.
import torch


def topk_mask(scores, k):
    scores.neg_()
    order = torch.sort(scores, dim=-1, stable=True).indices
    scores.neg_()
    return torch.zeros_like(scores, dtype=torch.bool).scatter_(-1, order[..., :k], True)
