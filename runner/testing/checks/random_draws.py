"""Random draws from torch's global generator (in the sandbox and out of it).

"Draw with a generator of your own" cannot be checked on the draws or on the global state alone: a
solution that saves the global state (``torch.get_rng_state``), seeds it, draws, keeps the state it
reached as its own and puts the caller's back (``torch.set_rng_state``) draws the same numbers as one
with its own ``torch.Generator`` and leaves the global state as it found it. What tells them apart is
which generator each random operator was given: every such aten operator takes a ``generator``
argument, and one given none (or ``torch.default_generator`` itself) draws from the global one.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

# Random operators without a generator argument: they always draw from the global generator.
ALWAYS_GLOBAL = frozenset({"native_dropout", "_fused_dropout"})


@contextlib.contextmanager
def global_rng_draws() -> Iterator[list[str]]:
    """Record, while the block runs, the name of every aten operator that drew from torch's global
    CPU generator; the list is what the case reports (``[]`` for code that only uses its own)."""
    import torch
    from torch.utils._python_dispatch import TorchDispatchMode

    drawn: list[str] = []
    # The dispatcher hands a new wrapper of the same generator: compare what it wraps.
    default = torch.default_generator._cdata  # type: ignore[attr-defined]

    # Per overload, once: its name and where its generator argument is (None: it takes none).
    positions: dict[Any, tuple[str, int | None]] = {}

    def position(func: Any) -> tuple[str, int | None]:
        names = [argument.name for argument in func._schema.arguments]
        found = (func.overloadpacket.__name__, names.index("generator") if "generator" in names else None)
        positions[func] = found
        return found

    class GlobalDraws(TorchDispatchMode):
        def __torch_dispatch__(self, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
            kwargs = kwargs or {}
            name, i = positions.get(func) or position(func)
            if name in ALWAYS_GLOBAL:
                drawn.append(name)
            elif i is not None:
                generator = kwargs.get("generator", args[i] if i < len(args) else None)
                if generator is None or generator._cdata == default:
                    drawn.append(name)
            return func(*args, **kwargs)

    with GlobalDraws():
        yield drawn
