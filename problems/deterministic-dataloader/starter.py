import torch
from torch.utils.data import DataLoader, Dataset, get_worker_info


class NoisyDataset(Dataset):
    """Item i is (i, noise): the noise stands for a random augmentation drawn from self.gen."""

    def __init__(self, n: int) -> None:
        self.n = n
        self.gen = torch.Generator().manual_seed(0)

    def __len__(self) -> int:
        return self.n

    def __getitem__(self, i: int):
        return i, torch.rand(1, generator=self.gen).item()


def seed_worker(worker_id: int) -> None:
    """Runs first in every worker process: give this worker's dataset copy its own random stream."""
    # TODO: reseed the dataset copy's generator from the worker's seed (see get_worker_info())
    raise NotImplementedError


def make_loader(dataset, batch_size: int, seed: int, num_workers: int = 0) -> DataLoader:
    """A shuffled DataLoader whose order and augmentations are reproducible from `seed` alone."""
    # TODO
    raise NotImplementedError("make_loader is not implemented yet")
