import torch


def welford_update(state: dict, batch: torch.Tensor) -> dict:
    """Fold one batch (shape (n, D)) into running statistics, numerically stably.

    state: {"count": int, "mean": (D,) tensor, "m2": (D,) tensor} (m2 = sum of squared deviations
    from the mean); count 0 with zero tensors means "nothing seen yet". Extra keys are ignored.
    Returns a NEW dict {"count", "mean", "m2", "var"} with var the unbiased variance
    (NaN while count < 2). Neither state nor batch may be modified.
    """
    # TODO: merge the batch's count, mean and M2 into the running ones
    raise NotImplementedError("welford_update is not implemented yet")
