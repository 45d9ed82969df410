"""The torch entry points that switch the operation observers off, and their sealed wrappers.

Each entry point that pops an interception mode or excludes the Python dispatch key is replaced,
while the guard is in force, by a sealed wrapper (:func:`prepare` in ``runner.testing.ops`` builds
them) that sends a ``tampered`` event when it is called while a check is active (a block of op
rules, or ``check_call``'s watch on writes: ``runner.testing.checks.writes``).
"""

from __future__ import annotations

import sys
from typing import Any

from runner.testing import sealed

# torch entry points that pop interception modes or exclude the Python dispatch key: wrapped.
# (Not _pop_torch_function_stack: torch itself pops a function mode around its handler.)
_BYPASSES = (
    "_pop_torch_dispatch_stack",
    "_ExcludeDispatchKeyGuard",
    "_dispatch_tls_set_dispatch_key_excluded",
    "_DisableTorchDispatch",
    "DisableTorchFunction",
    "_unset_dispatch_mode",
    "_set_dispatch_mode",
    "_ForceDispatchKeyGuard",
)
_BYPASS_MODULES = ("torch._C", "torch", "torch.overrides", "torch.utils._python_dispatch", "torch._ops")

# Names the template uses; seal() binds each to a constant. Never read at run time.
EMIT: Any = None
STATE: Any = None
ORIGINAL: Any = None
WHAT: Any = None
WATCHING: Any = None


def bypass_template(*args: Any, **kwargs: Any) -> Any:
    # inside a block of op rules, or while check_call watches an input's memory
    if STATE or WATCHING():
        EMIT("tampered", WHAT + " was called while the judge was watching operations")
    return ORIGINAL(*args, **kwargs)


WATCHES: Any = None


def watching_template() -> bool:
    """Is any of the judge's other watches on (``WATCHES``: their sealed ``watching`` functions)?"""
    for watching in WATCHES:  # noqa: SIM110 (sealed: no generator expressions)
        if watching():
            return True
    return False


sealed.prepare(bypass_template, watching_template)


def bypass_targets() -> list[tuple[Any, str, Any]]:
    """The bypasses as they are now, ``(module, name, value)``: each name of ``_BYPASSES`` in
    every loaded module of ``_BYPASS_MODULES`` that holds torch's own function under it."""
    found: list[tuple[Any, str, Any]] = []
    modules = [sys.modules[m] for m in _BYPASS_MODULES if m in sys.modules]
    for name in _BYPASSES:
        original = getattr(sys.modules["torch._C"], name, None)
        if original is None:
            continue
        found += [(module, name, original) for module in modules if getattr(module, name, None) is original]
    return found
