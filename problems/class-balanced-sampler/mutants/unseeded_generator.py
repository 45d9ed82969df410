# rule: own-seeded-generator
import torch
from torch.utils.data import WeightedRandomSampler


def make_balanced_sampler(labels: torch.Tensor, num_samples: int, seed: int) -> WeightedRandomSampler:
    counts = torch.bincount(labels)
    # each sample weighs 1 / (size of its class): every class gets the same total weight
    weights = 1.0 / counts[labels].double()
    return WeightedRandomSampler(
        weights,
        num_samples=num_samples,
        replacement=True,
        # no generator: draws come from the global RNG
    )
