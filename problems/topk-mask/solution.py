import torch


def topk_mask(scores: torch.Tensor, k: int) -> torch.Tensor:
    # A stable sort keeps equal scores in index order, so ties are won by the lowest index.
    order = torch.sort(scores, dim=-1, descending=True, stable=True).indices
    mask = torch.zeros_like(scores, dtype=torch.bool)
    return mask.scatter_(-1, order[..., :k], True)
