"""Tests for deterministic-dataloader.

The judge's sandbox cannot start worker processes, so the loader is iterated with num_workers=0 and
the worker_init_fn is called the way DataLoader's worker loop calls it: inside a (simulated) worker
whose get_worker_info() describes a fresh copy of the dataset and the worker's seed.
"""

import copy

import torch
import torch.utils.data._utils.worker as worker_module
from torch.utils.data import DataLoader, Dataset

from runner.testing import case, global_rng_draws


class NoisyDataset(Dataset):
    def __init__(self, n):
        self.n = n
        self.gen = torch.Generator().manual_seed(0)

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        return i, torch.rand(1, generator=self.gen).item()


def epochs(loader, count):
    return [
        [[idx.tolist(), [round(v, 6) for v in noise.tolist()]] for idx, noise in loader] for _ in range(count)
    ]


def in_simulated_worker(loader, worker_id, num_workers, seed, draws):
    """What a worker process does: get a copy of the dataset, run worker_init_fn, fetch items."""
    dataset = copy.deepcopy(loader.dataset)  # a forked worker holds a copy, generator state included
    info = worker_module.WorkerInfo(id=worker_id, num_workers=num_workers, seed=seed, dataset=dataset)
    previous = worker_module._worker_info
    worker_module._worker_info = info
    try:
        torch.manual_seed(seed)  # the worker loop seeds torch (and random) before worker_init_fn
        if loader.worker_init_fn is not None:
            loader.worker_init_fn(worker_id)
        return [round(dataset[i][1], 6) for i in range(draws)]
    finally:
        worker_module._worker_info = previous


@case(public=True)
def example(solution):
    loader = solution.make_loader(NoisyDataset(10), batch_size=4, seed=7)
    return [idx.tolist() for idx, _ in loader]


@case
def two_epochs_with_noise(solution):
    return epochs(solution.make_loader(NoisyDataset(11), batch_size=3, seed=1), 2)


@case
def same_seed_same_order(solution):
    first = [idx.tolist() for idx, _ in solution.make_loader(NoisyDataset(16), batch_size=5, seed=3)]
    second = [idx.tolist() for idx, _ in solution.make_loader(NoisyDataset(16), batch_size=5, seed=3)]
    other = [idx.tolist() for idx, _ in solution.make_loader(NoisyDataset(16), batch_size=5, seed=4)]
    return {"first": first, "repeatable": first == second, "other_seed_differs": first != other}


@case(rule="own-generator-not-global")
def global_rng_does_not_matter(solution):
    # Which generator every draw used: the global one, seeded, drawn from and put back (its state
    # kept between epochs) gives the same orders and leaves the global state as it was.
    with global_rng_draws() as global_draws:
        loader = solution.make_loader(NoisyDataset(12), batch_size=4, seed=5)
        orders = []
        for global_seed in (100, 200):
            torch.manual_seed(global_seed)  # e.g. model init or dropout between epochs
            orders.append([idx.tolist() for idx, _ in loader])
        fresh = solution.make_loader(NoisyDataset(12), batch_size=4, seed=5)
        torch.manual_seed(300)
        orders.append([idx.tolist() for idx, _ in fresh])
    return {"orders": orders, "draws_from_the_global_generator": global_draws}


@case
def loader_settings(solution):
    loader = solution.make_loader(NoisyDataset(9), batch_size=2, seed=0, num_workers=2)
    return {
        "batch_size": loader.batch_size,
        "num_workers": loader.num_workers,
        "drop_last": loader.drop_last,
        "shuffles": type(loader.sampler).__name__,
        "has_generator": isinstance(loader.generator, torch.Generator),
        "has_worker_init_fn": callable(loader.worker_init_fn),
    }


@case(rule="reseed-worker-copy")
def workers_get_distinct_streams(solution):
    loader = solution.make_loader(NoisyDataset(8), batch_size=2, seed=0, num_workers=2)
    base_seed = 123456789
    return [in_simulated_worker(loader, wid, 2, base_seed + wid, 4) for wid in range(2)]


@case(rule="reseed-worker-copy")
def worker_streams_change_every_epoch(solution):
    loader = solution.make_loader(NoisyDataset(8), batch_size=2, seed=0, num_workers=2)
    # each epoch draws a new base seed from the loader's generator
    return [[in_simulated_worker(loader, wid, 2, base + wid, 3) for wid in range(2)] for base in (11, 987654)]
