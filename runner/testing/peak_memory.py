"""How much memory a stretch of code holds at once: :func:`observe_peak_memory`.

A ``TorchDispatchMode`` sees every aten operation the enclosed code runs — from any Python route
(methods, ``torch.nn.functional``, ``out=`` and in-place forms) and from the autograd engine's work
during ``backward()``, which runs on the calling thread on CPU and inherits the Python mode stack.
Each tensor an operation reads or writes names its storage; the storage is counted, at its size in
bytes, from the first operation that touches it until it is freed. PyTorch keeps a storage's Python
object alive exactly as long as the storage itself (PyObject preservation), so a ``weakref.finalize``
on it fires when the memory is released, however the last reference goes.

What is measured is the peak of that live total: memory an operation touched and something still
holds. A tensor that no operation touches in the window is not counted, wherever it lives; a tensor
kept from before the window is counted from the moment the window's code uses it, so keeping work
outside autograd (a closure, a buffer filled with ``out=``) does not hide it.

The mode lives only for the ``with`` block; judged code cannot reach it through public names (the
source policy refuses the private ones that pop modes: docs/security.md).
"""

from __future__ import annotations

import contextlib
import functools
import weakref
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any


@dataclass
class PeakMemory:
    """What :func:`observe_peak_memory` saw: ``peak_bytes`` (the most held at once), ``live_bytes``
    (held now), ``operations`` (how many ran in the window)."""

    live_bytes: int = 0
    peak_bytes: int = 0
    operations: int = 0
    _sizes: dict[int, int] = field(default_factory=dict)
    _ignored: frozenset[int] = frozenset()
    _finalizers: list[Any] = field(default_factory=list)

    def _touch(self, tensor: Any) -> None:
        try:
            storage = tensor.untyped_storage()
        except (RuntimeError, NotImplementedError, TypeError):  # no storage of its own (sparse, nested)
            return
        key = id(storage)
        if key in self._ignored:
            return
        size = storage.nbytes()
        known = self._sizes.get(key)
        if known is None:
            finalizer = weakref.finalize(storage, self._release, key)
            finalizer.atexit = False
            self._finalizers.append(finalizer)
            known = 0
        if size != known:  # first seen, or resized by an ``out=`` operation since
            self._sizes[key] = size
            self.live_bytes += size - known

    def _release(self, key: int) -> None:
        self.live_bytes -= self._sizes.pop(key, 0)

    def _seen(self, values: Any) -> None:
        import torch
        from torch.utils._pytree import tree_leaves

        for leaf in tree_leaves(values):
            if isinstance(leaf, torch.Tensor):
                self._touch(leaf)
        self.peak_bytes = max(self.peak_bytes, self.live_bytes)

    def _close(self) -> None:
        for finalizer in self._finalizers:
            finalizer.detach()
        self._finalizers.clear()
        self._sizes.clear()


@functools.cache
def _mode_class() -> Any:
    """The dispatch mode's class, built on first use (importing ``runner.testing`` needs no torch)."""
    from torch.utils._python_dispatch import TorchDispatchMode

    class PeakMemoryMode(TorchDispatchMode):
        def __init__(self, record: PeakMemory) -> None:
            super().__init__()
            self.record = record

        def __torch_dispatch__(
            self, func: Any, types: Any, args: tuple[Any, ...] = (), kwargs: dict[str, Any] | None = None
        ) -> Any:
            kwargs = kwargs or {}
            self.record._seen((args, kwargs))
            out = func(*args, **kwargs)
            self.record.operations += 1
            self.record._seen(out)
            return out

    return PeakMemoryMode


@contextlib.contextmanager
def observe_peak_memory(ignore: Iterable[Any] = ()) -> Iterator[PeakMemory]:
    """Measure the peak bytes of live storages that the enclosed code's operations touch.

    ``with observe_peak_memory() as memory: loss.backward()`` then ``memory.peak_bytes``; read
    ``memory.live_bytes`` inside the block for what is held at that moment. The storages of the
    tensors in ``ignore`` (the inputs the caller holds anyway: ``x``, the parameters) are never
    counted. Compare with the same measurement of a reference run in the same process, as a
    ratio: what counts is the shape of the memory over time (one segment at once, or the whole
    stack), not the bytes of one allocator."""
    # The caller holds these tensors for the whole block, so their storages' ids stay theirs.
    record = PeakMemory(_ignored=frozenset(id(t.untyped_storage()) for t in ignore))
    try:
        with _mode_class()(record):
            yield record
    finally:
        record._close()
