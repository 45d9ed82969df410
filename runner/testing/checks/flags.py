"""Writes of tensors' ``requires_grad`` flags (in the sandbox and out of it).

A flag cleared and set back before a call returns reads as unchanged afterwards, and no version
counter moves for it. Both ways to write it — the property's setter and ``requires_grad_`` (which
``nn.Module.requires_grad_`` calls) — pass through ``__torch_function__``, so a
``TorchFunctionMode`` around the call sees each one.

The watch is sealed like the operation observers (``runner.testing.sealed``), since the learner's
code runs inside it: the handler and the block's entry and exit are sealed functions built once when
the zygote imports this module, the mode's class and the block's are immutable, and the counts are
kept in sealed constants. ``tests.py`` gets a plain list kept equal to them; when the block ends, a
list changed meanwhile, or a watch taken off torch's stack, reads as the counts plus a marker, which
never equals a reference's list.
"""

from __future__ import annotations

from typing import Any

from runner.testing import sealed

CHANGED = "(the judge's count of flag writes was changed)"
UNWATCHED = "(the judge's watch of flag writes was taken off torch's stack)"

# Names the templates use; seal() binds each to a constant. Never read at run time.
WATCHES: Any = None
WATCH_STATE: Any = None
SETTER: Any = None
REQUIRES_GRAD_: Any = None
METHOD_WRAPPER: Any = None
MODE: Any = None
WATCH_CLASS: Any = None
RESTORE: Any = None
push_function: Any = None
TAKE_OFF: Any = None


def _handler_template(self: Any, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
    del self  # the mode: no frame of the judge's holds it while other code runs
    if WATCHES and args and (func is REQUIRES_GRAD_ or (type(func) is METHOD_WRAPPER and func == SETTER)):
        key = id(args[0])
        k = 0
        while k < len(WATCHES):
            i = WATCHES[k][0].get(key)
            if i is not None:
                WATCHES[k][1][i] = WATCHES[k][1][i] + 1
                WATCHES[k][2][i] = WATCHES[k][1][i]
            k = k + 1
    if kwargs is None:
        return func(*args)
    return func(*args, **kwargs)


def _watch_template(tensors: Any) -> Any:
    """Count, while the block runs, the writes of the ``requires_grad`` flag of each of ``tensors``
    (by identity); the list, one count per tensor, is what the case reports."""
    watched = list(tensors)  # kept with the watch, so no id is reused while it lives
    index: dict[int, int] = {}
    kept: list[Any] = []
    for tensor in watched:
        index[id(tensor)] = len(kept)
        kept.append(0)
    watch = WATCH_CLASS()
    WATCH_STATE[watch] = (index, kept, list(kept), [0], watched)
    return watch


def _enter_template(self: Any) -> Any:
    if WATCH_STATE[self][3][0]:  # entered twice: nothing can be said of it
        WATCH_STATE[self][1].append(UNWATCHED)
        return WATCH_STATE[self][2]
    WATCH_STATE[self][3][0] = 1
    push_function(MODE)
    WATCHES.append(WATCH_STATE[self])
    return WATCH_STATE[self][2]


def _exit_template(self: Any, kind: Any, value: Any, traceback: Any) -> None:
    if not WATCHES or WATCHES[-1] is not WATCH_STATE[self]:
        WATCH_STATE[self][1].append(UNWATCHED)  # ended out of order
    else:
        WATCHES.pop()
    if not TAKE_OFF():
        WATCH_STATE[self][1].append(UNWATCHED)
    RESTORE(WATCH_STATE[self][1], WATCH_STATE[self][2], CHANGED)
    del WATCH_STATE[self]  # what it kept (the watched tensors too) goes with the block


def _watching_template() -> bool:
    return bool(WATCHES)


sealed.prepare(_handler_template, _watch_template, _enter_template, _exit_template, _watching_template)


class _Watch:
    """The context manager :func:`requires_grad_writes` returns (sealed ``__enter__``/``__exit__``)."""

    __slots__ = ()


def _build() -> tuple[Any, Any]:
    """The sealed ``requires_grad_writes``, built once, at import in the zygote: its state lives only
    in its constants."""
    import torch
    from torch.overrides import TorchFunctionMode

    base: Any = torch._C.TensorBase.__dict__
    common: dict[str, Any] = {"WATCHES": [], "WATCH_STATE": {}}
    setter = base["requires_grad"].__set__
    handler = sealed.seal(
        _handler_template,
        SETTER=setter,
        REQUIRES_GRAD_=base["requires_grad_"],
        METHOD_WRAPPER=type(setter),
        **common,
    )
    mode = sealed.mode_class("JudgeFlagWritesWatch", TorchFunctionMode, handler)()
    push = torch._C._push_on_torch_function_stack
    take_off = sealed.mode_taker(mode)
    sealed.sealed_class(
        _Watch,
        __enter__=sealed.seal(_enter_template, MODE=mode, push_function=push, **common),
        __exit__=sealed.seal(
            _exit_template, RESTORE=sealed.shown_list_restorer(), TAKE_OFF=take_off, **common
        ),
    )
    watch = sealed.seal(_watch_template, WATCH_CLASS=_Watch, **common)
    return watch, sealed.seal(_watching_template, **common)


# Built once, when the zygote imports this module (the module is read-only from then on):
# ``requires_grad_writes(tensors)`` is a sealed function, as ``check_call`` is.
requires_grad_writes, WATCHING = _build()
