import torch


def topk_mask(scores, k):
    # Everything >= the k-th largest value: more than k positions when that value is tied.
    kth = torch.topk(scores, k, dim=-1).values[..., -1:]
    return scores >= kth
