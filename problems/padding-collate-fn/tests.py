"""Tests for padding-collate-fn.

The collate function is called directly and through a DataLoader, on 1-D token ids and on 2-D
feature sequences, with empty sequences, a batch of one, and input integrity checked.
"""

import torch
from torch.utils.data import DataLoader

from runner.testing import case, writes_during


def random_items(seed, n, max_len, features=None, tokens=False):
    gen = torch.Generator().manual_seed(seed)
    items = []
    for _ in range(n):
        length = int(torch.randint(0, max_len + 1, (1,), generator=gen))
        if tokens:
            sequence = torch.randint(1, 100, (length,), generator=gen)
        elif features is None:
            sequence = torch.randn(length, generator=gen)
        else:
            sequence = torch.randn(length, features, generator=gen)
        items.append((sequence, int(torch.randint(0, 5, (1,), generator=gen))))
    return items


def described(batch):
    return {
        **batch,
        "padded_dtype": str(batch["padded"].dtype),
        "mask_dtype": str(batch["mask"].dtype),
        "lengths_dtype": str(batch["lengths"].dtype),
    }


@case(public=True)
def example(solution):
    batch = [(torch.tensor([5, 3, 8]), 1), (torch.tensor([2]), 0), (torch.tensor([7, 7]), 1)]
    out = solution.pad_collate(batch)
    return {key: value.tolist() for key, value in out.items()}


@case
def token_ids_through_a_dataloader(solution):
    items = random_items(1, 10, 6, tokens=True)
    loader = DataLoader(items, batch_size=4, shuffle=False, collate_fn=solution.pad_collate)
    return [described(batch) for batch in loader]


@case
def feature_sequences(solution):
    items = random_items(2, 7, 5, features=3)
    loader = DataLoader(items, batch_size=3, shuffle=False, collate_fn=solution.pad_collate)
    return [described(batch) for batch in loader]


@case
def empty_sequence_in_batch(solution):
    items = [(torch.tensor([1.5, -2.0]), 3), (torch.zeros(0), 1), (torch.tensor([4.0]), 2)]
    return described(solution.pad_collate(items))


@case
def batch_of_one(solution):
    return described(solution.pad_collate([(torch.tensor([[1.0, 2.0], [3.0, 4.0]]), 4)]))


@case
def equal_lengths(solution):
    items = [(torch.arange(4), i) for i in range(3)]
    return described(solution.pad_collate(items))


@case(rule="inputs-not-modified")
def inputs_not_modified(solution):
    items = random_items(3, 5, 4)
    before = [(s.clone(), label) for s, label in items]
    versions = [s._version for s, _ in items]  # modify-and-restore moves them
    # `.data` has a version counter of its own: the watch sees a write through any alias.
    out, written = writes_during(lambda: solution.pad_collate(items), *[s for s, _ in items])
    unchanged = all(torch.equal(s, b) and label == bl for (s, label), (b, bl) in zip(items, before))
    writes = [s._version - v for (s, _), v in zip(items, versions)]
    return {"batch": described(out), "inputs_unchanged": unchanged, "writes": writes, "written_by_any_alias": written}
