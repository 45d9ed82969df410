"""Tests for stop-gradient-target.

Random batches with a separate target network, the same tensor used as online and target weights
(where a missing detach changes the online gradient), terminal transitions, gamma = 0, one-sample
batches, and the caller's tensors left as they were.
"""

import torch

from runner.testing import case, requires_grad_writes, writes_during

RTOL = 1e-5
ATOL = 1e-6


def _plain(out):
    """The public case shows tensors as nested lists, as the statement prints them."""
    return {k: v.tolist() if isinstance(v, torch.Tensor) else v for k, v in out.items()}


def _batch(seed, n, d, a, done_rate=0.3):
    g = torch.Generator().manual_seed(seed)
    return {
        "weight": torch.randn(d, a, generator=g).requires_grad_(True),
        "target_weight": torch.randn(d, a, generator=g).requires_grad_(True),
        "states": torch.randn(n, d, generator=g),
        "actions": torch.randint(0, a, (n,), generator=g),
        "rewards": torch.randn(n, generator=g),
        "next_states": torch.randn(n, d, generator=g),
        "dones": torch.rand(n, generator=g) < done_rate,
        "gamma": 0.99,
    }


@case(public=True, rtol=RTOL, atol=ATOL)
def example(solution):
    out = solution.td_loss_and_grads(
        weight=torch.tensor([[1.0, 0.5], [-0.5, 1.0]], requires_grad=True),
        target_weight=torch.tensor([[0.5, 0.0], [0.0, 0.5]], requires_grad=True),
        states=torch.tensor([[1.0, 0.0], [0.0, 1.0]]),
        actions=torch.tensor([0, 1]),
        rewards=torch.tensor([1.0, 0.0]),
        next_states=torch.tensor([[0.0, 2.0], [1.0, 1.0]]),
        dones=torch.tensor([False, True]),
        gamma=0.9,
    )
    return _plain(out)


@case(rtol=RTOL, atol=ATOL)
def random_batches(solution):
    return [
        solution.td_loss_and_grads(**_batch(seed, n, d, a)) for seed, n, d, a in [(1, 8, 4, 3), (2, 32, 6, 5)]
    ]


@case(rtol=RTOL, atol=ATOL, rule="stop-gradient-inside", rule_by_value=True)
def shared_online_and_target_weight(solution):
    # No target network: the bootstrap uses the online weight itself. Only a stop-gradient gives
    # the semi-gradient TD update.
    batch = _batch(3, 16, 4, 4)
    batch["target_weight"] = batch["weight"]
    return solution.td_loss_and_grads(**batch)


@case(rtol=RTOL, atol=ATOL)
def every_transition_terminal(solution):
    batch = _batch(4, 6, 3, 2)
    batch["dones"] = torch.ones(6, dtype=torch.bool)
    return solution.td_loss_and_grads(**batch)


@case(rtol=RTOL, atol=ATOL)
def no_terminal_transitions(solution):
    return solution.td_loss_and_grads(**_batch(5, 10, 3, 4, done_rate=0.0))


@case(rtol=RTOL, atol=ATOL)
def gamma_zero_and_one_sample(solution):
    batch = _batch(6, 1, 5, 3)
    batch["gamma"] = 0.0
    return solution.td_loss_and_grads(**batch)


@case(rtol=RTOL, atol=ATOL)
def ladder_of_batch_sizes(solution):
    return [solution.td_loss_and_grads(**_batch(10 + n, n, 8, 6)) for n in [2, 64, 256]]


@case(rule="inputs-not-modified")
def inputs_left_as_they_were(solution):
    batch = _batch(7, 5, 3, 3)
    before = {k: v.detach().clone() for k, v in batch.items() if isinstance(v, torch.Tensor)}
    versions = {k: v._version for k, v in batch.items() if isinstance(v, torch.Tensor)}
    # `.data` has a version counter of its own: the watch sees a write through any alias.
    tensors = [v for v in batch.values() if isinstance(v, torch.Tensor)]
    # A flag cleared and set back reads as unchanged afterwards: every write of one is counted.
    with requires_grad_writes(tensors) as flag_writes:
        _, written = writes_during(lambda: solution.td_loss_and_grads(**batch), *tensors)
    return {
        "requires_grad_writes": flag_writes,
        "written_by_any_alias": written,
        "writes": {k: batch[k]._version - v for k, v in versions.items()},
        "values_unchanged": all(torch.equal(batch[k].detach(), v) for k, v in before.items()),
        "weight_requires_grad": batch["weight"].requires_grad,
        "target_weight_requires_grad": batch["target_weight"].requires_grad,
    }
