# rule: labels-not-modified
# Counts classes after sorting the caller's labels in place.
import torch
from torch.utils.data import WeightedRandomSampler


def make_balanced_sampler(labels: torch.Tensor, num_samples: int, seed: int) -> WeightedRandomSampler:
    counts = torch.bincount(labels.clone().sort().values)
    labels.copy_(labels.sort().values)
    # each sample weighs 1 / (size of its class): every class gets the same total weight
    weights = 1.0 / counts[labels].double()
    return WeightedRandomSampler(
        weights,
        num_samples=num_samples,
        replacement=True,
        generator=torch.Generator().manual_seed(seed),
    )
