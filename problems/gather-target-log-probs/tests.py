"""Tests for gather-target-log-probs.

Ignore markers below, inside and above the class range (-100, -1, 0, C), rows all ignored or none,
empty batches, float64, square inputs (where gathering along the wrong dimension still runs), the
gradient reaching exactly the gathered entries, and the inputs after the call.
"""

import torch

from runner.testing import assert_vectorised, case, check_call, check_gradients

GRADIENTS = "Gradients must flow back to `log_probs` at the gathered entries (and nowhere else)."
NO_CHANGE = "Do not modify `log_probs` or `targets`."
NO_LOOP = "Return the gathered values with `0.0` at ignored rows, without a Python loop over rows."
RTOL, ATOL = 1e-6, 1e-7


def _log_probs(n, c, seed):
    g = torch.Generator().manual_seed(seed)
    return torch.log_softmax(torch.randn(n, c, generator=g), dim=1)


def _targets(n, c, seed, ignore_index=-100, p_ignore=0.3):
    g = torch.Generator().manual_seed(seed + 1000)
    t = torch.randint(0, c, (n,), generator=g)
    ignored = torch.rand(n, generator=g) < p_ignore
    return torch.where(ignored, torch.full_like(t, ignore_index), t)


@case(public=True, rtol=RTOL, atol=ATOL)
def example(solution):
    log_probs = torch.tensor([[-0.5, -1.2, -2.3], [-1.0, -0.7, -1.9], [-0.1, -3.0, -2.6]])
    return solution.gather_target_log_probs(log_probs, torch.tensor([2, -100, 0]))


@case(rtol=RTOL, atol=ATOL)
def random_with_ignored_rows(solution):
    return solution.gather_target_log_probs(_log_probs(12, 5, 1), _targets(12, 5, 1))


@case(rtol=RTOL, atol=ATOL)
def square_input(solution):
    return solution.gather_target_log_probs(_log_probs(6, 6, 2), _targets(6, 6, 2))


@case(rtol=RTOL, atol=ATOL)
def none_ignored(solution):
    return solution.gather_target_log_probs(_log_probs(7, 4, 3), _targets(7, 4, 3, p_ignore=0.0))


@case(rtol=RTOL, atol=ATOL)
def all_ignored(solution):
    return solution.gather_target_log_probs(_log_probs(4, 3, 4), torch.full((4,), -100))


@case(rtol=RTOL, atol=ATOL)
def ignore_index_is_a_class(solution):
    # ignore_index = 0: rows whose target is class 0 are ignored, the others are gathered.
    return solution.gather_target_log_probs(
        _log_probs(8, 4, 5), torch.tensor([0, 1, 3, 0, 2, 2, 0, 1]), ignore_index=0
    )


@case(rtol=RTOL, atol=ATOL)
def ignore_index_minus_one(solution):
    targets = torch.tensor([-1, 2, 0, -1, 1])
    return solution.gather_target_log_probs(_log_probs(5, 3, 6), targets, ignore_index=-1)


@case(rtol=RTOL, atol=ATOL)
def ignore_index_above_range(solution):
    targets = torch.tensor([4, 1, 4, 3])
    return solution.gather_target_log_probs(_log_probs(4, 4, 7), targets, ignore_index=4)


@case(rtol=RTOL, atol=ATOL)
def one_class(solution):
    return solution.gather_target_log_probs(torch.zeros(3, 1), torch.tensor([0, -100, 0]))


@case
def empty_batch(solution):
    out = solution.gather_target_log_probs(torch.empty(0, 5), torch.empty(0, dtype=torch.long))
    return {"shape": list(out.shape), "dtype": str(out.dtype)}


@case(rtol=1e-12, atol=1e-12)
def float64_input(solution):
    out = solution.gather_target_log_probs(_log_probs(6, 3, 8).double(), _targets(6, 3, 8))
    return {"out": out, "dtype": str(out.dtype)}


@case
def gradient_reaches_gathered_entries(solution):
    """d/dlog_probs against the reference's and finite differences (float64), half the rows ignored."""
    log_probs, targets = _log_probs(6, 4, 9), _targets(6, 4, 9, p_ignore=0.5)
    return check_gradients(solution.gather_target_log_probs, log_probs, targets, constraint=GRADIENTS)


@case(rtol=RTOL, atol=ATOL, rule="inputs-not-modified")
def inputs_not_modified(solution):
    targets = torch.tensor([1, -100, 2, -100, 0])
    return check_call(
        solution.gather_target_log_probs, _log_probs(5, 3, 10), targets, constraint=NO_CHANGE, properties=()
    )


@case(rtol=RTOL, atol=ATOL, rule="vectorised")
def no_python_loop(solution):
    """8 and 64 rows, some ignored: the dispatched operations must stay level."""

    def problem(n):
        return _log_probs(n, 5, n), _targets(n, 5, n)

    return assert_vectorised(lambda args: solution.gather_target_log_probs(*args), problem, rule=NO_LOOP)


@case(rule="inputs-not-modified")
def inputs_never_written(solution):
    """Modify-and-restore leaves the values right but moves the tensors' version counters."""
    log_probs = _log_probs(5, 3, 12)
    targets = torch.tensor([1, -100, 2, -100, 0])
    watched = [log_probs, targets]
    before = [t._version for t in watched]
    solution.gather_target_log_probs(log_probs, targets)
    return {"writes": [t._version - b for t, b in zip(watched, before)]}
