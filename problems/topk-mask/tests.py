"""Tests for topk-mask.

Distinct scores, heavy ties (small integer scores, equal rows, -inf), k from 0 to n, single rows and
columns, an empty batch, float64, counts of True per row, a random family of tied rows over a ladder of
lengths (check_family), and the scores after the call (check_call). The tie rule
(lowest index first) is what tells a stable sort from torch.topk and from a threshold.
"""

import torch

from runner.testing import case, check_call, check_family, samples

NO_CHANGE = "Do not modify `scores`."
TIES = (
    "The tie rule is part of the answer: the hidden tests use many ties. `torch.topk` alone does not "
    "follow it."
)


def _distinct(b, n, seed):
    g = torch.Generator().manual_seed(seed)
    return torch.randn(b, n, generator=g)


def _tied(b, n, seed, levels=3):
    g = torch.Generator().manual_seed(seed)
    return torch.randint(0, levels, (b, n), generator=g).float()


def _run(solution, scores, k):
    mask = solution.topk_mask(scores, k)
    return {"mask": mask, "dtype": str(mask.dtype), "per_row": mask.sum(dim=-1)}


@case(public=True)
def example(solution):
    scores = torch.tensor([[0.2, 0.9, 0.5, 0.9, 0.1], [3.0, 1.0, 3.0, 3.0, 2.0]])
    return solution.topk_mask(scores, 2)


@case
def distinct_scores_k_ladder(solution):
    scores = _distinct(4, 9, 1)
    return [solution.topk_mask(scores, k) for k in (1, 3, 5, 8)]


@case
def heavy_ties(solution):
    return [_run(solution, _tied(6, 12, 2), k) for k in (1, 4, 7, 11)]


@case
def ties_of_large_values(solution):
    scores = _tied(5, 16, 3, levels=2) * 1e6
    return _run(solution, scores, 5)


@case
def equal_rows(solution):
    return _run(solution, torch.full((3, 6), 0.25), 4)


@case
def minus_infinity_ties(solution):
    scores = torch.tensor([[float("-inf"), 1.0, float("-inf"), float("-inf"), 0.5]] * 2)
    return [_run(solution, scores, k) for k in (2, 3, 4)]


@case
def k_zero(solution):
    return _run(solution, _distinct(3, 5, 4), 0)


@case
def k_equals_n(solution):
    return _run(solution, _tied(3, 5, 5), 5)


@case
def single_row_and_single_column(solution):
    return {"row": _run(solution, _tied(1, 10, 6), 3), "column": _run(solution, _distinct(4, 1, 7), 1)}


@case
def empty_batch(solution):
    mask = solution.topk_mask(torch.empty(0, 5), 2)
    return {"shape": list(mask.shape), "dtype": str(mask.dtype)}


@case
def float64_scores(solution):
    return _run(solution, _tied(4, 7, 8).double() / 3.0, 3)


@case
def wide_rows(solution):
    return _run(solution, _tied(2, 64, 9, levels=5), 20)


@case(rule="scores-not-modified")
def scores_not_modified(solution):
    return check_call(
        solution.topk_mask, _tied(3, 6, 10), 2, constraint=NO_CHANGE, properties=("shape", "dtype")
    )


def _random_tied_call(generator, n):
    """0 to 8 rows of n scores from a few levels (many ties), and a random k from 0 to n."""
    b = int(torch.randint(0, 9, (1,), generator=generator).item())
    levels = int(torch.randint(1, 5, (1,), generator=generator).item())
    scores = torch.randint(0, levels, (b, n), generator=generator).float()
    return scores, int(torch.randint(0, n + 1, (1,), generator=generator).item())


@case
def random_family_with_ties(solution):
    """Row lengths 1 to 64, random batch sizes (0 included), levels and k."""
    return check_family(
        solution.topk_mask,
        samples(_random_tied_call, seed=12, sizes=(1, 2, 3, 5, 8, 13, 64)),
        constraint=TIES,
    )


@case(rule="scores-not-modified")
def scores_never_written(solution):
    """Modify-and-restore leaves the values right but moves the tensors' version counters."""
    scores = _tied(4, 6, 11)
    watched = [scores]
    before = [t._version for t in watched]
    solution.topk_mask(scores, 3)
    return {"writes": [t._version - b for t, b in zip(watched, before)]}
