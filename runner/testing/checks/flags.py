"""Writes of tensors' ``requires_grad`` flags (in the sandbox and out of it).

A flag cleared and set back before a call returns reads as unchanged afterwards, and no version
counter moves for it. Both ways to write it — the property's setter and ``requires_grad_`` (which
``nn.Module.requires_grad_`` calls) — pass through ``__torch_function__``, so a
``TorchFunctionMode`` around the call sees each one.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Iterator
from typing import Any


@contextlib.contextmanager
def requires_grad_writes(tensors: Iterable[Any]) -> Iterator[list[int]]:
    """Count, while the block runs, the writes of the ``requires_grad`` flag of each of ``tensors``
    (by identity); the list, one count per tensor, is what the case reports."""
    import torch
    from torch.overrides import TorchFunctionMode

    watched = list(tensors)
    index = {id(t): i for i, t in enumerate(watched)}
    counts = [0] * len(watched)
    base: Any = torch._C.TensorBase.__dict__
    setters = (base["requires_grad"].__set__, base["requires_grad_"])

    class FlagWrites(TorchFunctionMode):
        def __torch_function__(self, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
            if func in setters and args and id(args[0]) in index:
                counts[index[id(args[0])]] += 1
            return func(*args, **(kwargs or {}))

    with FlagWrites():
        yield counts
