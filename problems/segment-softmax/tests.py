"""Tests for segment-softmax.

Unsorted ids, several heads, singleton and empty segments, scores far above exp's range, segments at
very different scales, all-negative segments (where a zero-initialised max breaks), per-segment sums,
an empty input, float64, the gradient, and the inputs after the call.
"""

import torch

from runner.testing import assert_vectorised, case, check_call, check_gradients

GRADIENTS = (
    "No `NaN` or `inf` for any finite input, however large or small. Gradients must flow back to `scores`."
)
NO_CHANGE = "Do not modify the inputs."
NO_LOOP = "Return the segment-wise softmax without a Python loop over segments or entries."
RTOL, ATOL = 1e-5, 1e-6


def _scores(shape, seed, scale=1.0, offset=0.0):
    g = torch.Generator().manual_seed(seed)
    return torch.randn(*shape, generator=g) * scale + offset


def _ids(n, num_segments, seed):
    g = torch.Generator().manual_seed(seed + 100)
    return torch.randint(0, num_segments, (n,), generator=g)


def _run(solution, scores, ids, num_segments):
    out = solution.segment_softmax(scores, ids, num_segments)
    sums = torch.zeros((num_segments, *out.shape[1:]), dtype=out.dtype).index_add_(0, ids, out.detach())
    return {"out": out, "dtype": str(out.dtype), "segment_sums": sums}


@case(public=True, rtol=RTOL, atol=ATOL)
def example(solution):
    scores = torch.tensor([1.0, 2.0, 0.0, 3.0, 0.5])
    return solution.segment_softmax(scores, torch.tensor([0, 0, 2, 2, 2]), 3)


@case(rtol=RTOL, atol=ATOL)
def random_unsorted(solution):
    return _run(solution, _scores((20,), 1), _ids(20, 5, 1), 5)


@case(rtol=RTOL, atol=ATOL)
def several_heads(solution):
    return _run(solution, _scores((15, 3), 2), _ids(15, 4, 2), 4)


@case(rtol=RTOL, atol=ATOL)
def singleton_and_empty_segments(solution):
    ids = torch.tensor([4, 1, 1, 4, 6, 1])
    return _run(solution, _scores((6,), 3), ids, 8)


@case(rtol=RTOL, atol=ATOL)
def huge_scores_do_not_overflow(solution):
    return _run(solution, _scores((12,), 4, scale=5.0, offset=1000.0), _ids(12, 3, 4), 3)


@case(rtol=RTOL, atol=ATOL)
def segments_at_different_scales(solution):
    scores = torch.cat([_scores((5,), 5, offset=0.0), _scores((5,), 6, offset=-1000.0)])
    ids = torch.tensor([0, 0, 0, 0, 0, 1, 1, 1, 1, 1])
    return _run(solution, scores, ids, 2)


@case(rtol=RTOL, atol=ATOL)
def all_negative_segment(solution):
    scores = torch.tensor([-500.0, -501.0, -499.5, 2.0, 1.0])
    return _run(solution, scores, torch.tensor([1, 1, 1, 0, 0]), 2)


@case(rtol=RTOL, atol=ATOL)
def equal_scores_share_evenly(solution):
    return _run(solution, torch.full((7, 2), 3.25), torch.tensor([0, 1, 0, 1, 0, 2, 2]), 3)


@case(rtol=RTOL, atol=ATOL)
def one_segment_is_plain_softmax(solution):
    return _run(solution, _scores((9, 2), 7, scale=3.0), torch.zeros(9, dtype=torch.long), 1)


@case
def no_entries(solution):
    out = solution.segment_softmax(torch.empty(0, 2), torch.empty(0, dtype=torch.long), 3)
    return {"shape": list(out.shape), "dtype": str(out.dtype)}


@case(rtol=1e-12, atol=1e-12)
def float64_scores(solution):
    return _run(solution, _scores((16, 2), 8, scale=4.0).double(), _ids(16, 5, 8), 5)


@case(rtol=1e-4, atol=1e-6)
def gradient(solution):
    """d/dscores against the reference's and finite differences (float64), empty segment included."""
    return check_gradients(
        solution.segment_softmax, _scores((10, 2), 9), _ids(10, 4, 9), 4, constraint=GRADIENTS
    )


@case(rtol=RTOL, atol=ATOL, rule="inputs-not-modified")
def inputs_not_modified(solution):
    return check_call(
        solution.segment_softmax, _scores((8,), 11), _ids(8, 3, 11), 3, constraint=NO_CHANGE, properties=()
    )


@case(rtol=RTOL, atol=ATOL, rule="vectorised")
def no_python_loop(solution):
    """n entries in n // 2 segments at n = 8 and n = 64: the dispatched operations must stay level."""

    def problem(n):
        g = torch.Generator().manual_seed(n)
        return torch.randn(n, 2, generator=g), torch.randint(0, n // 2, (n,), generator=g), n // 2

    return assert_vectorised(lambda args: solution.segment_softmax(*args), problem, rule=NO_LOOP)


@case(rule="inputs-not-modified")
def inputs_never_written(solution):
    """Modify-and-restore leaves the values right but moves the tensors' version counters."""
    scores = torch.randn(7, 2, generator=torch.Generator().manual_seed(71)) * 5
    ids = torch.tensor([1, 0, 1, 2, 2, 0, 1])
    watched = [scores, ids]
    before = [t._version for t in watched]
    solution.segment_softmax(scores, ids, 3)
    return {"writes": [t._version - b for t, b in zip(watched, before)]}
