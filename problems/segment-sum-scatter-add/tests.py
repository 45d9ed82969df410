"""Tests for segment-sum-scatter-add.

Repeated and unsorted ids, empty segments in the middle and at the end, every row in one segment or in
its own, an empty input, d = 1, float64, the gradient, the inputs after the call (check_call), and a random
family over a ladder of row counts (check_family).
"""

import torch

from runner.testing import assert_vectorised, case, check_call, check_family, check_gradients, samples

GRADIENTS = "Gradients must flow back to `values`."
NO_LOOP = "Return the segment sums without a Python loop."
NO_CHANGE = "Do not modify the inputs."
SIZES = "$0 \\le n \\le 64$, $1 \\le d \\le 8$, $1 \\le$ `num_segments` $\\le 16$; `n` may be 0 (all zeros)."

RTOL, ATOL = 1e-5, 1e-5


def _values(n, d, seed):
    g = torch.Generator().manual_seed(seed)
    return torch.randn(n, d, generator=g)


def _ids(n, num_segments, seed):
    g = torch.Generator().manual_seed(seed + 100)
    return torch.randint(0, num_segments, (n,), generator=g)


def _run(solution, values, ids, num_segments):
    out = solution.segment_sum(values, ids, num_segments)
    return {"out": out, "shape": list(out.shape), "dtype": str(out.dtype)}


@case(public=True, rtol=RTOL, atol=ATOL)
def example(solution):
    values = torch.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0], [7.0, 8.0]])
    return solution.segment_sum(values, torch.tensor([0, 2, 0, 2]), 4)


@case(rtol=RTOL, atol=ATOL)
def random_unsorted(solution):
    return _run(solution, _values(20, 3, 1), _ids(20, 5, 1), 5)


@case(rtol=RTOL, atol=ATOL)
def sorted_ids(solution):
    ids = _ids(15, 4, 2).sort().values
    return _run(solution, _values(15, 4, 2), ids, 4)


@case(rtol=RTOL, atol=ATOL)
def empty_segments_inside_and_at_the_end(solution):
    ids = torch.tensor([1, 3, 1, 3, 3, 1])
    return _run(solution, _values(6, 2, 3), ids, 6)


@case(rtol=RTOL, atol=ATOL)
def all_in_one_segment(solution):
    return _run(solution, _values(9, 3, 4), torch.full((9,), 2), 3)


@case(rtol=RTOL, atol=ATOL)
def each_row_its_own_segment(solution):
    perm = torch.randperm(7, generator=torch.Generator().manual_seed(5))
    return _run(solution, _values(7, 2, 5), perm, 7)


@case(rtol=RTOL, atol=ATOL)
def single_feature(solution):
    return _run(solution, _values(10, 1, 6), _ids(10, 3, 6), 3)


@case
def no_values(solution):
    out = solution.segment_sum(torch.empty(0, 3), torch.empty(0, dtype=torch.long), 4)
    return {"out": out, "shape": list(out.shape), "dtype": str(out.dtype)}


@case(rtol=1e-12, atol=1e-12)
def float64_values(solution):
    return _run(solution, _values(12, 3, 7).double(), _ids(12, 4, 7), 4)


@case(rtol=RTOL, atol=ATOL)
def larger_graph(solution):
    return _run(solution, _values(60, 8, 8), _ids(60, 10, 8), 12)


@case(rtol=RTOL, atol=ATOL)
def gradient_gathers_back(solution):
    """d/dvalues against the reference's and finite differences (float64)."""
    return check_gradients(solution.segment_sum, _values(8, 3, 9), _ids(8, 3, 9), 3, constraint=GRADIENTS)


@case(rule="inputs-not-modified")
def inputs_not_modified(solution):
    return check_call(
        solution.segment_sum,
        _values(6, 2, 11),
        _ids(6, 3, 11),
        3,
        constraint=NO_CHANGE,
        properties=("shape", "dtype"),
    )


def _random_graph(generator, n):
    d = int(torch.randint(1, 9, (1,), generator=generator).item())
    num_segments = int(torch.randint(1, 17, (1,), generator=generator).item())
    values = torch.randn(n, d, generator=generator)
    return values, torch.randint(0, num_segments, (n,), generator=generator), num_segments


@case(rtol=RTOL, atol=ATOL)
def random_family(solution):
    """0 to 64 rows, random widths and segment counts (often with empty segments)."""
    return check_family(
        solution.segment_sum, samples(_random_graph, seed=7, sizes=(0, 1, 2, 3, 5, 8, 64)), constraint=SIZES
    )


@case(rtol=RTOL, atol=ATOL, rule="vectorised")
def no_python_loop(solution):
    """The operations dispatched at 8 and 64 rows must stay level: a loop over rows grows."""

    def graph(n):
        g = torch.Generator().manual_seed(n)
        return torch.randn(n, 3, generator=g), torch.randint(0, 4, (n,), generator=g)

    return assert_vectorised(lambda args: solution.segment_sum(*args, 4), graph, rule=NO_LOOP)


@case(rule="inputs-not-modified")
def inputs_never_written(solution):
    """Modify-and-restore leaves the values right but moves the tensors' version counters."""
    values = torch.randn(6, 3, generator=torch.Generator().manual_seed(70))
    ids = torch.tensor([2, 0, 2, 1, 3, 0])
    watched = [values, ids]
    before = [t._version for t in watched]
    solution.segment_sum(values, ids, 4)
    return {"writes": [t._version - b for t, b in zip(watched, before)]}
