"""Tests for welford-running-variance.

Batches are folded one at a time, as a data loader would deliver them, and the running statistics
are compared (through the reference) with the exact answer: values far from zero (1e6 and 1e9 with
unit spread), batches of size 1 and 0, float32, a state that must not be modified, and new tensors
returned even for an empty batch (check_call).
"""

import torch

from runner.testing import case, check_call

NEW_TENSORS = "Do not modify `state` (nor its tensors) or `batch`: return new tensors."

RTOL64 = 1e-6
ATOL64 = 1e-6


def empty_state(dim, dtype=torch.float64):
    return {"count": 0, "mean": torch.zeros(dim, dtype=dtype), "m2": torch.zeros(dim, dtype=dtype)}


def stream(solution, batches, dtype=torch.float64):
    state = empty_state(batches[0].shape[1], dtype)
    for batch in batches:
        state = solution.welford_update(state, batch)
    return state


def summary(state):
    return {k: state[k] for k in ("count", "mean", "m2", "var")}


def random_batches(seed, sizes, dim, offset, scale=1.0, dtype=torch.float64):
    g = torch.Generator().manual_seed(seed)
    return [(torch.randn(n, dim, generator=g, dtype=torch.float64) * scale + offset).to(dtype) for n in sizes]


@case(public=True, rtol=RTOL64, atol=ATOL64)
def example(solution):
    state = {
        "count": 3,
        "mean": torch.tensor([1e6, 2.0], dtype=torch.float64),
        "m2": torch.tensor([2.0, 8.0], dtype=torch.float64),
    }
    batch = torch.tensor([[1000004.0, 0.0], [1000006.0, 4.0]], dtype=torch.float64)
    out = solution.welford_update(state, batch)
    return {k: (v.tolist() if isinstance(v, torch.Tensor) else v) for k, v in summary(out).items()}


@case(rtol=RTOL64, atol=ATOL64)
def stream_around_1e6(solution):
    batches = random_batches(1, [5, 17, 1, 32, 9, 64], dim=3, offset=1e6)
    return summary(stream(solution, batches))


@case(rtol=RTOL64, atol=ATOL64)
def stream_around_1e9_unit_spread(solution):
    batches = random_batches(2, [40, 40, 7, 100, 3], dim=4, offset=1e9)
    return summary(stream(solution, batches))


@case(rtol=RTOL64, atol=ATOL64)
def one_sample_at_a_time(solution):
    (data,) = random_batches(3, [60], dim=2, offset=-5e8, scale=3.0)
    return summary(stream(solution, [row.unsqueeze(0) for row in data]))


@case(rtol=RTOL64, atol=ATOL64)
def one_big_batch(solution):
    batches = random_batches(4, [200], dim=5, offset=0.0, scale=10.0)
    return summary(stream(solution, batches))


@case(rtol=RTOL64, atol=ATOL64)
def different_means_per_batch(solution):
    """Batches drawn around different centres: the between-batch term dominates M2."""
    g = torch.Generator().manual_seed(5)
    batches = [
        torch.randn(n, 3, generator=g, dtype=torch.float64) + c for n, c in [(8, -50.0), (3, 20.0), (12, 7.5)]
    ]
    return summary(stream(solution, batches))


@case(rtol=RTOL64, atol=ATOL64)
def empty_batches_and_tiny_counts(solution):
    g = torch.Generator().manual_seed(6)
    state = empty_state(2)
    seen = []
    for n in (0, 1, 0, 1, 0, 3):
        state = solution.welford_update(state, torch.randn(n, 2, generator=g, dtype=torch.float64) + 1e6)
        seen.append(summary(state))
    return seen


@case(rtol=1e-4, atol=1e-3)
def float32_stream(solution):
    batches = random_batches(7, [16, 16, 5, 30], dim=3, offset=100.0, scale=2.0, dtype=torch.float32)
    out = stream(solution, batches, dtype=torch.float32)
    return {**summary(out), "dtype": str(out["var"].dtype)}


@case(rtol=RTOL64, atol=ATOL64, rule="new-tensors")
def inputs_not_modified(solution):
    (batch,) = random_batches(8, [6], dim=2, offset=10.0)
    state = {
        "count": 4,
        "mean": torch.tensor([9.0, 11.0], dtype=torch.float64),
        "m2": torch.tensor([3.0, 5.0], dtype=torch.float64),
    }
    before = {k: (v.clone() if isinstance(v, torch.Tensor) else v) for k, v in state.items()}
    batch_before = batch.clone()
    out = solution.welford_update(state, batch)
    unchanged = (
        state["count"] == before["count"]
        and torch.equal(state["mean"], before["mean"])
        and torch.equal(state["m2"], before["m2"])
        and torch.equal(batch, batch_before)
    )
    return {"out": summary(out), "inputs_unchanged": unchanged}


def _update_on(solution):
    """welford_update with the state's tensors as arguments, so check_call can watch them."""

    def update(mean, m2, batch):
        out = solution.welford_update({"count": 4, "mean": mean, "m2": m2}, batch)
        return out["count"], out["mean"], out["m2"], out["var"]

    return update


def _state_tensors():
    mean = torch.tensor([9.0, 11.0], dtype=torch.float64)
    return mean, torch.tensor([3.0, 5.0], dtype=torch.float64)


@case(rtol=RTOL64, atol=ATOL64, rule="new-tensors")
def returns_new_tensors(solution):
    """The state's tensors stay as they were and are not handed back."""
    (batch,) = random_batches(9, [3], dim=2, offset=10.0)
    return check_call(
        _update_on(solution), *_state_tensors(), batch, constraint=NEW_TENSORS, properties=("shape", "dtype")
    )


@case(rtol=RTOL64, atol=ATOL64, rule="new-tensors")
def returns_new_tensors_for_an_empty_batch(solution):
    """Nothing to add is no reason to return the caller's own tensors."""
    empty = torch.zeros(0, 2, dtype=torch.float64)
    return check_call(
        _update_on(solution), *_state_tensors(), empty, constraint=NEW_TENSORS, properties=("shape", "dtype")
    )


@case(rule="new-tensors")
def nothing_written(solution):
    """Modify-and-restore leaves the values right but moves the tensors' version counters."""
    (batch,) = random_batches(10, [5], dim=2, offset=10.0)
    mean = torch.tensor([9.0, 11.0], dtype=torch.float64)
    m2 = torch.tensor([3.0, 5.0], dtype=torch.float64)
    watched = [batch, mean, m2]
    before = [t._version for t in watched]
    solution.welford_update({"count": 4, "mean": mean, "m2": m2}, batch)
    return {"writes": [t._version - b for t, b in zip(watched, before)]}
