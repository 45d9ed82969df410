# rule: scores-not-modified
# Right mask, but the caller's scores are left sorted.
import torch


def topk_mask(scores, k):
    sorted_scores, order = torch.sort(scores, dim=-1, descending=True, stable=True)
    scores.copy_(sorted_scores)
    return torch.zeros_like(scores, dtype=torch.bool).scatter_(-1, order[..., :k], True)
