# rule: own-generator-not-global
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
    # Each worker holds its own copy of the dataset, with an identical copy of its generator:
    # reseed that copy from the worker's seed (base seed from the loader's generator + worker id).
    info = get_worker_info()
    info.dataset.gen.manual_seed(info.seed)


def make_loader(dataset, batch_size: int, seed: int, num_workers: int = 0) -> DataLoader:
    torch.manual_seed(seed)  # seeds the global RNG now; the shuffle happens later, at each epoch
    return DataLoader(
        dataset,
        batch_size=batch_size,
        shuffle=True,
        num_workers=num_workers,
        worker_init_fn=seed_worker,
    )
