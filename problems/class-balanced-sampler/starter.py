import torch
from torch.utils.data import WeightedRandomSampler


def make_balanced_sampler(labels: torch.Tensor, num_samples: int, seed: int) -> WeightedRandomSampler:
    """A WeightedRandomSampler that draws every class equally often in expectation.

    labels: int64 tensor (N,) of class ids. One weight per *sample*, inverse to the size of its class;
    draws with replacement, `num_samples` indices per pass, from a torch.Generator seeded with `seed`.
    """
    # TODO
    raise NotImplementedError("make_balanced_sampler is not implemented yet")
