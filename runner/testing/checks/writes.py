"""Every write into an input's memory during a checked call, by any alias (in the sandbox).

An input's version counter moves when the input itself is written in place, and ``detach()`` and
views share it; but ``.data`` (and ``nn.Parameter(x)``-style wrappers) make an alias with a
counter of its own, so a write through it that is undone before the call returns leaves neither
the bits nor the counter changed. What every such route shares is the dispatcher: an in-place
write, an ``out=`` argument, ``copy_``, ``index_put_``, ``set_``, a fused or ``_foreach`` kernel are
all aten operators whose schema marks the arguments they write. While ``check_call`` runs the
learner's function, a sealed ``TorchDispatchMode`` (:func:`begin`/:func:`end`) notes every aten
call that writes a tensor whose storage is one of the inputs' storages, whatever tensor object,
view or alias carries it.

The handler and its class are sealed like the observers' (``runner.testing.sealed``): built when
``check_call``'s module is imported in the zygote, every name a code constant, the class
immutable. A learner who takes the mode off the stack (only private names can, which the source
policy refuses) is seen at the end: the mode is not on top, and every input is reported as
"unwatched", which never matches the reference's report.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from runner.testing import sealed

# Names the templates use; seal() binds each to a constant. Never read at run time.
WATCHED: Any = None
WRITTEN: Any = None
WRITES_OF: Any = None
TENSOR: Any = None
UNTYPED_STORAGE: Any = None
STORAGE_DATA_PTR: Any = None
object_getattribute: Any = None
MODE: Any = None
push_dispatch: Any = None
TAKE_OFF: Any = None


def _writes_of_template(func: Any) -> tuple[tuple[int, str], ...]:
    """(position, name) of each argument the operator writes, from its schema, once per operator."""
    known = WRITES_OF.get(func)
    if known is not None:
        return known
    found: list[tuple[int, str]] = []
    try:
        arguments = object_getattribute(func, "_schema").arguments
    except Exception:
        arguments = []
    i = 0
    for argument in arguments:
        alias = argument.alias_info
        if alias is not None and alias.is_write:
            found.append((i, argument.name))
        i = i + 1
    result = tuple(found)
    WRITES_OF[func] = result
    return result


def _handler_template(self: Any, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
    del self  # the mode: no frame of the judge's holds it while other code runs
    if WATCHED:
        watched = WATCHED[-1]
        for position, name in WRITES_OF_FN(func):
            if position < len(args):
                target = args[position]
            elif kwargs is not None:
                target = kwargs.get(name)
            else:
                target = None
            items = list(target) if type(target) is list or type(target) is tuple else [target]
            for item in items:
                if isinstance(item, TENSOR):
                    try:
                        ptr = STORAGE_DATA_PTR(UNTYPED_STORAGE(item))
                    except Exception:
                        ptr = 0
                    if ptr and ptr in watched:
                        WRITTEN[-1].add(ptr)
    if kwargs is None:
        return func(*args)
    return func(*args, **kwargs)


def _begin_template(tensors: Any) -> None:
    """Watch the storages of ``tensors`` (an iterable of real tensors) until :func:`end`."""
    ptrs: set[int] = set()
    for t in tensors:
        try:
            ptr = STORAGE_DATA_PTR(UNTYPED_STORAGE(t))
        except Exception:
            ptr = 0
        if ptr:
            ptrs.add(ptr)
    WATCHED.append(ptrs)
    WRITTEN.append(set())
    push_dispatch(MODE)


def _end_template() -> Any:
    """The storages written since the matching :func:`begin`, or None when the watch was taken
    off the stack (nothing can then be said about the call's writes)."""
    on_top = TAKE_OFF()
    written = WRITTEN.pop() if WRITTEN else None
    if WATCHED:
        WATCHED.pop()
    return written if on_top else None


WRITES_OF_FN: Any = None


def _watching_template() -> bool:
    return bool(WATCHED)


sealed.prepare(
    _writes_of_template,
    _handler_template,
    _begin_template,
    _end_template,
    _watching_template,
)


def build() -> tuple[Callable[[Any], None], Callable[[], Any], Callable[[], bool]]:
    """The sealed ``begin``, ``end`` and ``watching`` (is a watch on?), built once, at import in the
    zygote: their state lives only in their constants."""
    import torch
    from torch.utils._python_dispatch import TorchDispatchMode

    base: Any = torch._C.TensorBase.__dict__
    common = {
        "WATCHED": [],
        "WRITTEN": [],
        "WRITES_OF": {},
        "TENSOR": torch.Tensor,
        "UNTYPED_STORAGE": base["untyped_storage"],
        "STORAGE_DATA_PTR": torch._C.StorageBase.__dict__["data_ptr"],
        "object_getattribute": object.__getattribute__,
    }
    writes_of = sealed.seal(_writes_of_template, **common)
    handler = sealed.seal(_handler_template, WRITES_OF_FN=writes_of, **common)
    mode = sealed.mode_class("JudgeWriteWatch", TorchDispatchMode, handler)()
    push = torch._C._push_on_torch_dispatch_stack
    take_off = sealed.mode_taker(mode)
    begin = sealed.seal(_begin_template, MODE=mode, push_dispatch=push, **common)
    end = sealed.seal(_end_template, TAKE_OFF=take_off, **common)
    return begin, end, sealed.seal(_watching_template, **common)


# Built once, when the zygote imports this module; the module is read-only from then on.
# ``WATCHING`` is what the sealed wrappers of torch's mode-popping entry points ask
# (``runner.testing.op_bypasses``): one called while a watch is on reports a modified judge.
BEGIN, END, WATCHING = build()
