# rule: own-seeded-generator
# kind: cheat
# No generator of its own: the global RNG is reseeded with `seed` at every epoch, so each epoch
# repeats, but it clobbers everyone else's random stream.
import torch
from torch.utils.data import WeightedRandomSampler


def make_balanced_sampler(labels: torch.Tensor, num_samples: int, seed: int) -> WeightedRandomSampler:
    counts = torch.bincount(labels)
    # each sample weighs 1 / (size of its class): every class gets the same total weight
    weights = 1.0 / counts[labels].double()
    return _Reseeding(weights, num_samples=num_samples, replacement=True, seed=seed)


class _Reseeding(WeightedRandomSampler):
    def __init__(self, *args, seed, **kwargs):
        super().__init__(*args, **kwargs)
        self.seed = seed

    def __iter__(self):
        torch.manual_seed(self.seed)
        return super().__iter__()
