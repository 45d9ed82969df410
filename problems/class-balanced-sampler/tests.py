"""Tests for class-balanced-sampler.

The drawn indices are compared exactly (same weights and generator give the same draws), with the
sampler's normalised weights, its settings, the class balance of a large draw, and reproducibility.
"""

import torch
from torch.utils.data import DataLoader, TensorDataset, WeightedRandomSampler

from runner.testing import case, global_rng_draws, writes_during


def imbalanced_labels(seed, n, probabilities):
    gen = torch.Generator().manual_seed(seed)
    return torch.multinomial(torch.tensor(probabilities), n, replacement=True, generator=gen)


def described(sampler):
    weights = torch.as_tensor(sampler.weights, dtype=torch.float64)
    return {
        "indices": list(sampler),
        "normalised_weights": weights / weights.sum(),
        "num_samples": sampler.num_samples,
        "replacement": sampler.replacement,
        "is_weighted_random_sampler": isinstance(sampler, WeightedRandomSampler),
    }


@case(public=True)
def example(solution):
    labels = torch.tensor([0, 0, 0, 0, 0, 0, 1, 1, 2])
    return list(solution.make_balanced_sampler(labels, 12, 0))


@case(rtol=1e-6, atol=1e-9)
def imbalanced_three_classes(solution):
    labels = imbalanced_labels(1, 50, [0.8, 0.15, 0.05])
    return described(solution.make_balanced_sampler(labels, 30, 1))


@case(rtol=1e-6, atol=1e-9)
def fewer_samples_than_dataset(solution):
    labels = imbalanced_labels(2, 40, [0.5, 0.3, 0.2])
    return described(solution.make_balanced_sampler(labels, 10, 2))


@case(rtol=1e-6, atol=1e-9)
def class_ids_with_gaps(solution):
    labels = torch.tensor([2, 5, 5, 9, 9, 9, 9, 5, 2, 9])
    return described(solution.make_balanced_sampler(labels, 20, 3))


@case(rtol=1e-6, atol=1e-9)
def single_class_is_uniform(solution):
    return described(solution.make_balanced_sampler(torch.zeros(6, dtype=torch.int64), 8, 4))


@case
def large_draw_is_balanced(solution):
    labels = imbalanced_labels(5, 300, [0.9, 0.07, 0.03])
    drawn = labels[torch.tensor(list(solution.make_balanced_sampler(labels, 3000, 5)))]
    shares = torch.bincount(drawn, minlength=3).double() / drawn.numel()
    return {"indices_drawn": drawn.numel(), "balanced": bool((shares - 1 / 3).abs().max() < 0.05)}


@case(rule="own-seeded-generator")
def reproducible_and_independent_of_global_rng(solution):
    labels = imbalanced_labels(6, 30, [0.7, 0.3])
    # Which generator every draw used: the global one, seeded, drawn from and put back (its state
    # kept between epochs) gives the same draws and leaves the global state as it was.
    with global_rng_draws() as global_draws:
        sampler = solution.make_balanced_sampler(labels, 15, 6)
        torch.manual_seed(11)
        first_epoch = list(sampler)
        torch.manual_seed(11)
        second_epoch = list(sampler)
        torch.manual_seed(99)
        fresh = list(solution.make_balanced_sampler(labels, 15, 6))
    return {
        "first": first_epoch,
        "second": second_epoch,
        "fresh_repeats_first": fresh == first_epoch,
        "draws_from_the_global_generator": global_draws,
    }


@case
def drives_a_dataloader(solution):
    labels = imbalanced_labels(7, 20, [0.75, 0.25])
    dataset = TensorDataset(torch.arange(20), labels)
    loader = DataLoader(dataset, batch_size=4, sampler=solution.make_balanced_sampler(labels, 10, 7))
    return [[idx.tolist(), y.tolist()] for idx, y in loader]


@case(rule="labels-not-modified")
def labels_not_modified(solution):
    labels = imbalanced_labels(8, 12, [0.6, 0.4])
    before = labels.clone()
    version = labels._version  # modify-and-restore moves it
    # The sampler's draws run after the call: the watch covers both, and sees writes through any
    # alias (`.data` has a version counter of its own).
    _, written = writes_during(lambda: list(solution.make_balanced_sampler(labels, 5, 8)), labels)
    return {
        "written_by_any_alias": written,
        "unchanged": torch.equal(labels, before),
        "dtype": str(labels.dtype),
        "writes": labels._version - version,
    }
