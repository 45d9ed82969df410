import torch


def label_smoothed_cross_entropy(
    logits: torch.Tensor, target: torch.Tensor, smoothing: float, ignore_index: int = -100
) -> torch.Tensor:
    """Label-smoothed cross-entropy from logits (N, C) and class indices target (N,).

    Each sample's target distribution is (1 - smoothing) on its class plus smoothing / C on every
    class. Samples whose target equals ignore_index do not count; the result is the mean over the
    others (NaN if there are none). F.cross_entropy and nn.CrossEntropyLoss are not allowed.
    """
    # TODO
    raise NotImplementedError("label_smoothed_cross_entropy is not implemented yet")
