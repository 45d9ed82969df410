# rule: own-generator-not-global
# kind: cheat
# Shuffles with the global generator, seeded with seed and put back around every epoch (its own state
# kept as a byte tensor): the same orders as an own generator, and the global state left as it was.
import torch
from torch.utils.data import DataLoader, Dataset, get_worker_info
from torch.utils.data import RandomSampler as TorchRandomSampler


class NoisyDataset(Dataset):
    def __init__(self, n: int) -> None:
        self.n = n
        self.gen = torch.Generator().manual_seed(0)

    def __len__(self) -> int:
        return self.n

    def __getitem__(self, i: int):
        return i, torch.rand(1, generator=self.gen).item()


def seed_worker(worker_id: int) -> None:
    info = get_worker_info()
    info.dataset.gen.manual_seed(info.seed)


class RandomSampler(TorchRandomSampler):
    def __init__(self, dataset, seed):
        super().__init__(dataset)
        self.n = len(dataset)
        saved = torch.get_rng_state()
        torch.manual_seed(seed)
        self.mine = torch.get_rng_state()
        torch.set_rng_state(saved)

    def __len__(self):
        return self.n

    def __iter__(self):
        saved = torch.get_rng_state()
        torch.set_rng_state(self.mine)
        torch.empty((), dtype=torch.int64).random_()  # where the loader's base seed comes from
        order = torch.randperm(self.n).tolist()
        torch.randperm(self.n)  # RandomSampler draws one more permutation at the end of an epoch
        self.mine = torch.get_rng_state()
        torch.set_rng_state(saved)
        return iter(order)


def make_loader(dataset, batch_size: int, seed: int, num_workers: int = 0) -> DataLoader:
    return DataLoader(
        dataset,
        batch_size=batch_size,
        sampler=RandomSampler(dataset, seed),
        num_workers=num_workers,
        worker_init_fn=seed_worker,
        generator=torch.Generator(),  # only the base seed of the workers comes from it
    )
