import torch


def topk_mask(scores: torch.Tensor, k: int) -> torch.Tensor:
    """A boolean mask with exactly k True values per row: the k largest scores of that row.

    scores: float (B, n); 0 <= k <= n. Ties are broken by position: among equal scores the
    lower index is chosen first. Returns a torch.bool tensor of shape (B, n).
    """
    # TODO: choose the k positions (ties: lowest index first), then scatter True into them
    raise NotImplementedError("topk_mask is not implemented yet")
