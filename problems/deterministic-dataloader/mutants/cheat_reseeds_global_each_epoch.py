# rule: own-generator-not-global
# kind: cheat
# No generator of its own: a sampler that reseeds the global RNG from `seed` at every epoch, so each
# epoch is reproducible, and the caller's random stream is clobbered.
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


class _Reseeding(torch.utils.data.RandomSampler):
    def __init__(self, data, seed):
        super().__init__(data)
        self.seed = seed
        self.epoch = 0

    def __iter__(self):
        torch.manual_seed(self.seed + self.epoch)
        self.epoch += 1
        return super().__iter__()


def make_loader(dataset, batch_size: int, seed: int, num_workers: int = 0) -> DataLoader:
    return DataLoader(
        dataset,
        batch_size=batch_size,
        sampler=_Reseeding(dataset, seed),
        num_workers=num_workers,
        worker_init_fn=seed_worker,
    )
