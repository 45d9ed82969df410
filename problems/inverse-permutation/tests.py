"""Tests for inverse-permutation.

Single permutations (identity, reversal, cycles, random, n = 1, n = 0) and batches (square and
not), the int64 dtype, the caller's tensor after the call (check_call) and random batches over a
ladder of lengths (check_family).
"""

import torch

from runner.testing import assert_vectorised, case, check_call, check_family, samples

NO_LOOP = "Return the inverse of each permutation without a Python loop over elements or rows."
NO_CHANGE = "Do not modify `perm`; the hidden tests check it after the call."
SIZES = (
    "$0 \\le n \\le 64$ and $1 \\le B \\le 8$; `n` may be 1 or 0 (an empty permutation gives an empty "
    "result)."
)


def _random_perm(n, seed):
    g = torch.Generator().manual_seed(seed)
    return torch.randperm(n, generator=g)


def _random_batch(b, n, seed):
    g = torch.Generator().manual_seed(seed)
    return (
        torch.stack([torch.randperm(n, generator=g) for _ in range(b)])
        if b
        else torch.empty(0, n, dtype=torch.long)
    )


@case(public=True)
def example(solution):
    return solution.inverse_permutation(torch.tensor([2, 0, 3, 1]))


@case
def identity_and_reversal(solution):
    return {
        "identity": solution.inverse_permutation(torch.arange(6)),
        "reversal": solution.inverse_permutation(torch.arange(6).flip(0)),
    }


@case
def cycle(solution):
    # A 5-cycle is not its own inverse (a swap would be).
    return solution.inverse_permutation(torch.tensor([1, 2, 3, 4, 0]))


@case
def random_single(solution):
    return [solution.inverse_permutation(_random_perm(n, n)) for n in (3, 10, 57)]


@case
def length_one_and_empty(solution):
    one = solution.inverse_permutation(torch.tensor([0]))
    empty = solution.inverse_permutation(torch.zeros(0, dtype=torch.long))
    return {"one": one, "empty_shape": list(empty.shape), "empty_dtype": str(empty.dtype)}


@case
def batch_rectangular(solution):
    return solution.inverse_permutation(_random_batch(4, 7, 1))


@case
def batch_square(solution):
    return solution.inverse_permutation(_random_batch(5, 5, 2))


@case
def batch_of_one(solution):
    return solution.inverse_permutation(_random_batch(1, 8, 3))


@case
def inverse_undoes_the_permutation(solution):
    perm = _random_batch(3, 9, 4)
    inv = solution.inverse_permutation(perm)
    rows = torch.arange(3)[:, None]
    return {"perm_of_inv": perm[rows, inv], "inv_of_perm": inv[rows, perm], "dtype": str(inv.dtype)}


@case(rule="perm-not-modified")
def perm_not_modified(solution):
    return check_call(
        solution.inverse_permutation, _random_batch(2, 6, 5), constraint=NO_CHANGE, properties=()
    )


def _random_rows(generator, n):
    b = int(torch.randint(1, 9, (1,), generator=generator).item())
    return torch.stack([torch.randperm(n, generator=generator) for _ in range(b)])


@case
def random_batches_family(solution):
    """1 to 8 rows of random permutations for lengths 0 to 64."""
    return check_family(
        solution.inverse_permutation,
        samples(_random_rows, seed=6, sizes=(0, 1, 2, 3, 5, 8, 64)),
        constraint=SIZES,
    )


@case(rule="vectorised")
def no_python_loop(solution):
    """The operations dispatched for 2 rows of length 8 and 16 rows of length 64 must stay level: a
    loop over rows grows as surely as one over elements."""

    def perms(n):
        return _random_batch(n // 4, n, n)

    return assert_vectorised(solution.inverse_permutation, perms, rule=NO_LOOP)


@case(rule="perm-not-modified")
def perm_never_written(solution):
    """Modify-and-restore leaves the values right but moves the tensor's version counter."""
    perm = _random_batch(3, 5, 4)
    before = perm._version
    solution.inverse_permutation(perm)
    return {"writes": perm._version - before}
