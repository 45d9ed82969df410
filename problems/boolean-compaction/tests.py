"""Tests for boolean-compaction.

Masks keeping no row, one row, every row, and random subsets; inputs of rank 1 to 3 and integer
dtypes; empty inputs; shapes and dtypes of both results; the inputs after the call.
"""

import torch

from runner.testing import assert_vectorised, case, check_call

NO_CHANGE = "Do not modify `x` or `mask`."
NO_LOOP = "Return the kept rows and their indices, without a Python loop."


def _random(shape, seed):
    g = torch.Generator().manual_seed(seed)
    return torch.randn(*shape, generator=g)


def _mask(n, seed, p=0.5):
    g = torch.Generator().manual_seed(seed + 500)
    return torch.rand(n, generator=g) < p


def _run(solution, x, mask):
    rows, indices = solution.compact_rows(x, mask)
    return {
        "rows": rows,
        "indices": indices,
        "rows_shape": list(rows.shape),
        "rows_dtype": str(rows.dtype),
        "indices_shape": list(indices.shape),
        "indices_dtype": str(indices.dtype),
    }


@case(public=True)
def example(solution):
    x = torch.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0], [7.0, 8.0]])
    rows, indices = solution.compact_rows(x, torch.tensor([True, False, True, False]))
    return [rows.tolist(), indices.tolist()]


@case
def example_types(solution):
    x = torch.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0], [7.0, 8.0]])
    return _run(solution, x, torch.tensor([True, False, True, False]))


@case
def random_matrix(solution):
    return _run(solution, _random((10, 3), 1), _mask(10, 1))


@case
def random_3d_rows(solution):
    return _run(solution, _random((7, 2, 3), 2), _mask(7, 2))


@case
def vector_input(solution):
    return _run(solution, _random((9,), 3), _mask(9, 3))


@case
def nothing_kept(solution):
    return _run(solution, _random((5, 2, 3), 4), torch.zeros(5, dtype=torch.bool))


@case
def single_row_kept(solution):
    mask = torch.zeros(6, dtype=torch.bool)
    mask[4] = True
    return _run(solution, _random((6, 3), 5), mask)


@case
def everything_kept(solution):
    return _run(solution, _random((4, 2), 6), torch.ones(4, dtype=torch.bool))


@case
def first_and_last_rows(solution):
    return _run(
        solution,
        torch.arange(12, dtype=torch.int32).reshape(6, 2),
        torch.tensor([True, False, False, False, False, True]),
    )


@case
def empty_input(solution):
    return _run(solution, torch.empty(0, 4), torch.zeros(0, dtype=torch.bool))


@case
def larger_random(solution):
    return _run(solution, _random((40, 5), 7), _mask(40, 7, p=0.2))


@case(rule="inputs-not-modified")
def inputs_not_modified(solution):
    return check_call(
        solution.compact_rows, _random((6, 2), 8), _mask(6, 8), constraint=NO_CHANGE, properties=()
    )


@case(rule="vectorised")
def no_python_loop(solution):
    """8 and 64 rows, about half kept: the dispatched operations must stay level."""

    def problem(n):
        g = torch.Generator().manual_seed(n)
        return torch.randn(n, 3, generator=g), torch.rand(n, generator=g) > 0.5

    return assert_vectorised(lambda args: solution.compact_rows(*args), problem, rule=NO_LOOP)


@case(rule="inputs-not-modified")
def inputs_never_written(solution):
    """Modify-and-restore leaves the values right but moves the tensors' version counters."""
    x = torch.arange(12.0).reshape(4, 3)
    mask = torch.tensor([True, False, True, True])
    watched = [x, mask]
    before = [t._version for t in watched]
    solution.compact_rows(x, mask)
    return {"writes": [t._version - b for t, b in zip(watched, before)]}
