"""observe_peak_memory: what the enclosed operations hold at once, and the routes around it.

Each test runs real torch code in this process; the problem that uses the observer
(manual-activation-checkpointing) is validated against the real sandbox, and its cheats are in
tests/runner/redteam/test_checkpoint_segments.py.
"""

from __future__ import annotations

import threading

import pytest

torch = pytest.importorskip("torch")

from runner.testing import observe_peak_memory  # noqa: E402

FLOAT = 4  # bytes


def test_an_output_counts_while_it_lives_and_the_peak_remembers_it() -> None:
    a = torch.ones(1000)
    with observe_peak_memory(ignore=[a]) as memory:
        b = a * 2
        held = memory.live_bytes
        del b
        after = memory.live_bytes
    assert held == 1000 * FLOAT
    assert after == 0
    assert memory.peak_bytes == 1000 * FLOAT


def test_views_of_one_storage_count_once() -> None:
    with observe_peak_memory() as memory:
        base = torch.zeros(64, 64)
        views = [base.t(), base[1:], base.view(-1), base.unsqueeze(0)]
        assert memory.live_bytes == 64 * 64 * FLOAT
    assert len(views) == 4


def test_a_tensor_kept_from_before_counts_once_an_operation_reads_it() -> None:
    """Work kept outside autograd (a closure, a Function's attribute) is not hidden: using it counts it."""
    kept = [torch.randn(256) for _ in range(4)]
    with observe_peak_memory() as memory:
        assert memory.live_bytes == 0
        total = sum(t.sum() for t in kept)
        assert memory.live_bytes >= 4 * 256 * FLOAT
    assert torch.isfinite(total)


def test_a_buffer_filled_with_out_counts_at_its_size_and_when_it_grows() -> None:
    buffer = torch.empty(0)
    a = torch.randn(16, 16)
    with observe_peak_memory(ignore=[a]) as memory:
        torch.mm(a, a, out=buffer)
        assert memory.live_bytes == 16 * 16 * FLOAT
        torch.cat([a, a, a], out=buffer.resize_(0))
        assert memory.live_bytes == 3 * 16 * 16 * FLOAT


def test_ignored_tensors_are_never_counted() -> None:
    x = torch.randn(1000)
    with observe_peak_memory(ignore=[x]) as memory:
        x.add_(1)
        x.view(10, 100).sum()
    assert memory.peak_bytes <= FLOAT * 2  # the scalar sum only


def test_backward_runs_on_the_calling_thread_and_its_operations_are_seen() -> None:
    threads: set[int] = set()
    w = torch.randn(32, 32, requires_grad=True)
    x = torch.randn(128, 32)
    loss = torch.tanh(x @ w).sum()

    def note(grad: object) -> None:
        threads.add(threading.get_ident())

    w.register_hook(note)
    with observe_peak_memory(ignore=[w, x]) as memory:
        loss.backward()
    assert threads == {threading.get_ident()}
    assert memory.operations > 0
    # tanh's saved output (128 x 32) is read by its backward, and the gradients are written.
    assert memory.peak_bytes >= 128 * 32 * FLOAT + 32 * 32 * FLOAT


def test_recomputing_everything_at_once_peaks_higher_than_one_piece_at_a_time() -> None:
    """The shape the checkpointing problem relies on: same values, different peaks."""
    from torch.utils.checkpoint import checkpoint

    def layers(h: torch.Tensor, weights: list[torch.Tensor]) -> torch.Tensor:
        for weight in weights:
            h = torch.tanh(h @ weight)
        return h

    def peak(pieces: int) -> int:
        torch.manual_seed(0)
        weights = [torch.randn(16, 16, requires_grad=True) for _ in range(8)]
        h = torch.randn(512, 16)
        size = len(weights) // pieces
        for start in range(0, len(weights), size):
            h = checkpoint(layers, h, weights[start : start + size], use_reentrant=False)
        loss = h.sum()
        with observe_peak_memory() as memory:
            loss.backward()
        return memory.peak_bytes

    assert peak(1) > 1.5 * peak(4)


def test_nothing_is_counted_after_the_block() -> None:
    with observe_peak_memory() as memory:
        t = torch.ones(100) + 1
    live = memory.live_bytes
    del t
    assert memory.live_bytes == live
