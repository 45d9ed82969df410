"""Tests for running-mean-tracker.

Train-mode updates over several batches, eval mode leaving the buffer alone, the buffer in
state_dict (and loadable) but not in parameters, dtype conversion with .double(), and no autograd
history in the buffer.
"""

import torch

from runner.testing import case, writes_during

RTOL = 1e-5
ATOL = 1e-6


def _batches(seed, n_batches, n, c):
    g = torch.Generator().manual_seed(seed)
    return [torch.randn(n, c, generator=g) * 2 + 1 for _ in range(n_batches)]


@case(public=True, rtol=RTOL, atol=ATOL)
def example(solution):
    tracker = solution.build_running_mean_tracker(3, momentum=0.5)
    tracker.train()
    tracker(torch.tensor([[1.0, 2.0, 3.0], [3.0, 4.0, 5.0]]))
    tracker(torch.tensor([[4.0, 4.0, 4.0]]))
    tracker.eval()
    out = tracker(torch.tensor([[0.0, 0.0, 0.0]]))
    return {
        "running_mean": tracker.running_mean.tolist(),
        "eval_output": out.tolist(),
        "state_dict_keys": list(tracker.state_dict().keys()),
        "num_parameters": len(list(tracker.parameters())),
    }


@case(rtol=RTOL, atol=ATOL)
def several_train_batches(solution):
    tracker = solution.build_running_mean_tracker(4, momentum=0.1)
    outputs = [tracker(b) for b in _batches(1, 5, 8, 4)]
    return {"outputs": outputs, "running_mean": tracker.running_mean}


@case(rtol=RTOL, atol=ATOL)
def default_momentum_and_one_sample_batches(solution):
    tracker = solution.build_running_mean_tracker(2)
    for b in _batches(2, 3, 1, 2):
        tracker(b)
    return tracker.running_mean


@case(rtol=RTOL, atol=ATOL)
def eval_mode_does_not_update(solution):
    tracker = solution.build_running_mean_tracker(3, momentum=0.3)
    train_batch, eval_batch, later_batch = _batches(3, 3, 4, 3)
    tracker(train_batch)
    tracker.eval()
    eval_out = tracker(eval_batch)
    after_eval = tracker.running_mean.clone()
    tracker.train()
    tracker(later_batch)
    return {"eval_out": eval_out, "after_eval": after_eval, "after_train_again": tracker.running_mean}


@case(rtol=RTOL, atol=ATOL, rule="registered-buffer")
def buffer_not_parameter_and_saved(solution):
    tracker = solution.build_running_mean_tracker(3, momentum=0.2)
    tracker(_batches(4, 1, 5, 3)[0])
    state = tracker.state_dict()
    fresh = solution.build_running_mean_tracker(3, momentum=0.2)
    fresh.load_state_dict(state)
    return {
        "parameters": [name for name, _ in tracker.named_parameters()],
        "buffers": [name for name, _ in tracker.named_buffers()],
        "state": {k: v.clone() for k, v in state.items()},
        "loaded": fresh.running_mean,
    }


@case(rtol=1e-12, atol=1e-12)
def moves_with_double(solution):
    tracker = solution.build_running_mean_tracker(2, momentum=0.25).double()
    x = torch.tensor([[1.0, 2.0], [2.0, 5.0]], dtype=torch.float64)
    out = tracker(x)
    return {"dtype": str(tracker.running_mean.dtype), "output": out, "running_mean": tracker.running_mean}


@case(rtol=RTOL, atol=ATOL)
def no_autograd_history_in_the_buffer(solution):
    tracker = solution.build_running_mean_tracker(3, momentum=0.5)
    x = _batches(5, 1, 4, 3)[0].requires_grad_(True)
    out = tracker(x)
    out.sum().backward()
    return {
        "buffer_requires_grad": tracker.running_mean.requires_grad,
        "buffer_has_grad_fn": tracker.running_mean.grad_fn is not None,
        "x_grad": x.grad,
    }


@case(rtol=RTOL, atol=ATOL, rule="input-not-modified")
def input_untouched(solution):
    tracker = solution.build_running_mean_tracker(3, momentum=0.5)
    x = _batches(6, 1, 3, 3)[0]
    before = x.clone()
    version = x._version  # modify-and-restore moves it
    # `.data` has a version counter of its own: the watch sees a write through any alias.
    _, written = writes_during(lambda: tracker(x), x)
    return {
        "x": x,
        "unchanged": bool(torch.equal(x, before)),
        "writes": x._version - version,
        "written_by_any_alias": written,
    }
