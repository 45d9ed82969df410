"""Tests for padding-mask-from-lengths.

Explicit and default max_len, zero lengths, full rows, empty batches, a square case (B == max_len,
where a transposed mask has the right shape), and random batches; the dtype must be bool.
"""

import torch

from runner.testing import assert_vectorised, case, check_call

NO_CHANGE = "Do not modify `lengths`."
NO_LOOP = "Return the mask without a Python loop over the batch."


def _random_lengths(batch, longest, seed):
    g = torch.Generator().manual_seed(seed)
    return torch.randint(0, longest + 1, (batch,), generator=g)


@case(public=True)
def example(solution):
    return solution.padding_mask(torch.tensor([3, 1, 4, 0]))


@case
def explicit_longer_max_len(solution):
    return solution.padding_mask(torch.tensor([2, 5, 1]), max_len=7)


@case
def explicit_max_len_equal_to_longest(solution):
    return solution.padding_mask(torch.tensor([2, 5, 1]), max_len=5)


@case
def square_batch(solution):
    # B == max_len: a transposed mask has the right shape but the wrong values.
    return solution.padding_mask(torch.tensor([1, 4, 2, 3]))


@case
def all_full(solution):
    return solution.padding_mask(torch.tensor([3, 3, 3]))


@case
def all_zero_lengths(solution):
    return {
        "default": solution.padding_mask(torch.tensor([0, 0])),
        "explicit": solution.padding_mask(torch.tensor([0, 0]), max_len=3),
    }


@case
def single_sequence(solution):
    return solution.padding_mask(torch.tensor([6]))


@case
def empty_batch(solution):
    default = solution.padding_mask(torch.zeros(0, dtype=torch.long))
    explicit = solution.padding_mask(torch.zeros(0, dtype=torch.long), max_len=4)
    return {
        "default_shape": list(default.shape),
        "default_dtype": str(default.dtype),
        "explicit_shape": list(explicit.shape),
        "explicit_dtype": str(explicit.dtype),
    }


@case
def random_batches(solution):
    return [
        solution.padding_mask(_random_lengths(b, n, seed))
        for seed, (b, n) in enumerate([(5, 9), (16, 3), (2, 30)])
    ]


@case
def random_with_extra_padding(solution):
    lengths = _random_lengths(8, 10, 11)
    return solution.padding_mask(lengths, max_len=13)


@case(rule="lengths-not-modified")
def lengths_not_modified(solution):
    return check_call(solution.padding_mask, torch.tensor([4, 2, 0, 3]), 6, constraint=NO_CHANGE)


@case(rule="vectorised")
def no_python_loop(solution):
    """Batches of 8 and 64 sequences: the dispatched operations must stay level."""

    def lengths(n):
        return torch.randint(0, 11, (n,), generator=torch.Generator().manual_seed(n))

    return assert_vectorised(lambda lens: solution.padding_mask(lens, 10), lengths, rule=NO_LOOP)


@case(rule="lengths-not-modified")
def lengths_never_written(solution):
    """Modify-and-restore leaves the values right but moves the tensors' version counters."""
    lengths = torch.tensor([4, 2, 0, 3])
    watched = [lengths]
    before = [t._version for t in watched]
    solution.padding_mask(lengths, 6)
    return {"writes": [t._version - b for t, b in zip(watched, before)]}
