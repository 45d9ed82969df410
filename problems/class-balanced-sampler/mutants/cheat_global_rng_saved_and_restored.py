# rule: own-seeded-generator
# kind: cheat
# Draws from the global generator, seeded with seed and put back after every epoch (its own state
# kept as a byte tensor): the same draws as an own generator, and the global state left as it was.
import torch
from torch.utils.data import WeightedRandomSampler


class GlobalDraws(WeightedRandomSampler):
    """Draws with the global RNG, saved and restored around each epoch."""

    def __init__(self, weights, num_samples, seed):
        super().__init__(weights, num_samples=num_samples, replacement=True)
        saved = torch.get_rng_state()
        torch.manual_seed(seed)
        self.mine = torch.get_rng_state()
        torch.set_rng_state(saved)

    def __iter__(self):
        saved = torch.get_rng_state()
        torch.set_rng_state(self.mine)
        drawn = torch.multinomial(self.weights, self.num_samples, self.replacement)
        self.mine = torch.get_rng_state()
        torch.set_rng_state(saved)
        yield from iter(drawn.tolist())


def make_balanced_sampler(labels: torch.Tensor, num_samples: int, seed: int) -> WeightedRandomSampler:
    counts = torch.bincount(labels)
    weights = 1.0 / counts[labels].double()
    return GlobalDraws(weights, num_samples, seed)
