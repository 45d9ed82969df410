# rule: labels-not-modified
# kind: cheat
# Writes the caller's labels through `.data` (a version counter of its own) and back: bit for bit
# the same afterwards, and no counter of the caller's tensors moved.
import torch
from torch.utils.data import WeightedRandomSampler


def make_balanced_sampler(labels: torch.Tensor, num_samples: int, seed: int) -> WeightedRandomSampler:
    labels.data.add_(1)
    labels.data.sub_(1)
    counts = torch.bincount(labels)
    # each sample weighs 1 / (size of its class): every class gets the same total weight
    weights = 1.0 / counts[labels].double()
    return WeightedRandomSampler(
        weights,
        num_samples=num_samples,
        replacement=True,
        generator=torch.Generator().manual_seed(seed),
    )
