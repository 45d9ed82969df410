"""Small helpers the in-sandbox checks share: naming a call's arguments, locating an element."""

from __future__ import annotations

import inspect
from typing import Any


def argument_names(fn: Any, count: int) -> list[str]:
    """The names of ``fn``'s first ``count`` parameters, for messages (``input3`` past the signature).

    ``fn`` may be a function, an ``nn.Module`` (its ``forward``) or an ``autograd.Function`` subclass
    (its ``forward`` without ``ctx``).
    """
    target = fn.forward if hasattr(fn, "forward") else fn
    try:
        params = list(inspect.signature(target).parameters)
    except (TypeError, ValueError):
        params = []
    if isinstance(fn, type):  # autograd.Function.forward(ctx, ...)
        params = params[1:]
    params = [p for p in params if p not in ("self", "args", "kwargs")]
    return [params[i] if i < len(params) else f"input{i}" for i in range(count)]


def index_of(flat: int, shape: Any) -> list[int]:
    """The multi-dimensional index of the ``flat``-th element of a tensor of ``shape``."""
    index = []
    for size in reversed(list(shape)):
        index.append(flat % size if size else 0)
        flat = flat // size if size else 0
    return list(reversed(index))
