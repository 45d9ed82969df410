"""How much memory a stretch of code holds at once: :func:`observe_peak_memory`.

A ``TorchDispatchMode`` sees every aten operation the enclosed code runs — from any Python route
(methods, ``torch.nn.functional``, ``out=`` and in-place forms) and from the autograd engine's work
during ``backward()``, which runs on the calling thread on CPU and inherits the Python mode stack.
Each tensor an operation reads or writes names its storage; the storage is counted, at its size in
bytes, from the first operation that touches it until it is freed. PyTorch keeps a storage's Python
object alive exactly as long as the storage itself (PyObject preservation), so a weak reference to
it whose callback releases the count fires when the memory is released, however the last reference
goes.

What is measured is the peak of that live total: memory an operation touched and something still
holds. A tensor that no operation touches in the window is not counted, wherever it lives; a tensor
kept from before the window is counted from the moment the window's code uses it, so keeping work
outside autograd (a closure, a buffer filled with ``out=``) does not hide it.

The measurement is sealed like the operation observers (``runner.testing.sealed``), since the
learner's code runs inside it (a tensor subclass, a hook, a Function's ``backward``): the handler,
the release callback and the readers are sealed functions, built once when the zygote imports this
module; the mode's class and :class:`PeakMemory` are immutable; every count lives only in the
sealed functions' constants. A :class:`PeakMemory` is a handle with no state of its own: holding
one (or the callback, which ``weakref.getweakrefs`` hands out) lowers nothing. A release for a
storage still alive is ignored, and a window whose mode was taken off torch's stack reads ``inf``
(within no budget).
"""

from __future__ import annotations

from typing import Any

from runner.testing import sealed

# Names the templates use; seal() binds each to a constant. Never read at run time.
WINDOWS: Any = None
RECORDS: Any = None
WINDOW_RECORDS: Any = None
REFS: Any = None
TENSOR: Any = None
PARAMETER: Any = None
TENSOR_BASE: Any = None
SUBCLASS: Any = None
UNTYPED_STORAGE: Any = None
NBYTES: Any = None
NO_SUBCLASS_HANDLERS: Any = None
REF: Any = None
RELEASED: Any = None
STORAGE_OF: Any = None
TOUCH: Any = None
SEEN: Any = None
CLOSE: Any = None
MODE: Any = None
RECORD_CLASS: Any = None
WINDOW_CLASS: Any = None
push_dispatch: Any = None
TAKE_OFF: Any = None
int_repr: Any = None
INF: Any = None

# A record's state, a list reached only through ``RECORDS[record]`` in the sealed functions below
# (never bound to a local, so no frame a finalizer or a hook might walk to holds it): live bytes,
# peak bytes, operations, {storage id: bytes counted}, {ignored storage id: bytes not counted},
# the weak references that release what was counted, tampered (0/1), the window was entered (0/1).


def _storage_of_template(tensor: Any) -> Any:
    """A tensor's storage through torch's C method, with no subclass's ``__torch_function__`` asked
    (learner code would choose the answer); None when it has none of its own (sparse, nested)."""
    try:
        kind = type(tensor)
        if kind is TENSOR or kind is PARAMETER:
            return UNTYPED_STORAGE(tensor)
        with NO_SUBCLASS_HANDLERS():
            return UNTYPED_STORAGE(tensor)
    except Exception:
        return None


def _touch_template(storage: Any) -> None:
    """Count ``storage`` in every open window, at its size now: an ignored one only by what it grew
    since the window was made (``x.data.resize_(...)`` would otherwise hide anything in its tail)."""
    key = id(storage)
    size = NBYTES(storage)
    for record in WINDOWS:
        counted = size - RECORDS[record][4].get(key, 0)
        if counted < 0:
            counted = 0
        known = RECORDS[record][3].get(key)
        if known is None:
            if counted == 0 and key in RECORDS[record][4]:
                continue  # an ignored storage, no larger than it was
            ref = REF(storage, RELEASED)
            REFS[id(ref)] = (ref, key, record)
            RECORDS[record][5].append(ref)
            RECORDS[record][3][key] = 0
            known = 0
        if counted != known:  # first seen, or resized by an ``out=`` operation since
            RECORDS[record][3][key] = counted
            RECORDS[record][0] = RECORDS[record][0] + counted - known


def _released_template(ref: Any) -> None:
    """A counted storage was freed: the weak reference's callback. Called by anyone else (the
    callback is what ``weakref.getweakrefs(storage)[i].__callback__`` returns), it does nothing
    unless the storage is really gone."""
    entry = REFS.get(id(ref))
    if entry is None or entry[0] is not ref or ref() is not None:
        return  # not ours, or the storage still lives: keep counting it
    del REFS[id(ref)]
    RECORDS[entry[2]][0] = RECORDS[entry[2]][0] - RECORDS[entry[2]][3].pop(entry[1], 0)


def _seen_template(values: Any) -> None:
    """Count the storage of every tensor among ``values`` (a tensor, or a tuple, list or dict of
    them, nested as aten's arguments and results are), then raise every window's peak."""
    pending = [values]
    while pending:
        value = pending.pop()
        kind = type(value)
        if kind is tuple or kind is list:
            pending.extend(value)
        elif kind is dict:
            pending.extend(dict.values(value))
        elif SUBCLASS(TENSOR_BASE, kind):
            storage = STORAGE_OF(value)
            if storage is not None:
                TOUCH(storage)
    for record in WINDOWS:
        if RECORDS[record][0] > RECORDS[record][1]:
            RECORDS[record][1] = RECORDS[record][0]


def _handler_template(self: Any, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
    del self  # the mode: no frame of the judge's holds it while other code runs
    if WINDOWS:
        SEEN(args)
        if kwargs:
            SEEN(kwargs)
    out = func(*args) if kwargs is None else func(*args, **kwargs)
    if WINDOWS:
        for record in WINDOWS:
            RECORDS[record][2] = RECORDS[record][2] + 1
        SEEN(out)
    return out


def _observe_template(ignore: Any = ()) -> Any:
    """Measure the peak bytes of live storages that the enclosed code's operations touch.

    ``with observe_peak_memory() as memory: loss.backward()`` then ``memory.peak_bytes``; read
    ``memory.live_bytes`` inside the block for what is held at that moment. The storages of the
    tensors in ``ignore`` (the inputs the caller holds anyway: ``x``, the parameters) are never
    counted. Compare with the same measurement of a reference run in the same process, as a
    ratio: what counts is the shape of the memory over time (one segment at once, or the whole
    stack), not the bytes of one allocator."""
    ignored = {}  # storage id: its bytes now, which are never counted
    for tensor in ignore:
        storage = STORAGE_OF(tensor)
        if storage is not None:
            ignored[id(storage)] = NBYTES(storage)
    record = RECORD_CLASS()
    RECORDS[record] = [0, 0, 0, {}, ignored, [], 0, 0]
    window = WINDOW_CLASS()
    WINDOW_RECORDS[window] = record
    return window


def _enter_template(self: Any) -> Any:
    """The window opens: the mode goes on torch's stack with the outermost open window."""
    record = WINDOW_RECORDS[self]
    if RECORDS[record][7]:  # entered twice: nothing can be said of it
        RECORDS[record][6] = 1
        return record
    RECORDS[record][7] = 1
    if not WINDOWS:
        push_dispatch(MODE)
    WINDOWS.append(record)
    return record


def _exit_template(self: Any, kind: Any, value: Any, traceback: Any) -> None:
    CLOSE(WINDOW_RECORDS.pop(self))  # the record stays readable; the window is done


def _close_template(record: Any) -> None:
    """The window of ``record`` ends: nothing it counted is released any more, and the mode leaves
    torch's stack with the outermost window (a window without it on top is marked)."""
    if not WINDOWS or WINDOWS[-1] is not record:
        for other in WINDOWS:  # ended out of order: nothing can be said of any open window
            RECORDS[other][6] = 1
        RECORDS[record][6] = 1
    else:
        WINDOWS.pop()
    if not WINDOWS or RECORDS[record][6]:
        if not TAKE_OFF():
            RECORDS[record][6] = 1
            for other in WINDOWS:
                RECORDS[other][6] = 1
        elif WINDOWS:  # an inner window ended out of order: the outer ones keep the mode
            push_dispatch(MODE)
    for ref in RECORDS[record][5]:
        REFS.pop(id(ref), None)
    RECORDS[record][5] = []
    RECORDS[record][3] = {}


def _live_template(self: Any) -> Any:
    return INF if RECORDS[self][6] else RECORDS[self][0]


def _peak_template(self: Any) -> Any:
    return INF if RECORDS[self][6] else RECORDS[self][1]


def _operations_template(self: Any) -> Any:
    return RECORDS[self][2]


def _repr_template(self: Any) -> str:
    if RECORDS[self][6]:
        return "PeakMemory(unwatched: the judge's mode was taken off torch's stack)"
    return (
        "PeakMemory(live_bytes="
        + int_repr(RECORDS[self][0])
        + ", peak_bytes="
        + int_repr(RECORDS[self][1])
        + ", operations="
        + int_repr(RECORDS[self][2])
        + ")"
    )


def _watching_template() -> bool:
    return bool(WINDOWS)


sealed.prepare(
    _storage_of_template,
    _touch_template,
    _released_template,
    _seen_template,
    _handler_template,
    _observe_template,
    _enter_template,
    _exit_template,
    _close_template,
    _live_template,
    _peak_template,
    _operations_template,
    _repr_template,
    _watching_template,
)


class PeakMemory:
    """What :func:`observe_peak_memory` saw: ``peak_bytes`` (the most held at once), ``live_bytes``
    (held now), ``operations`` (how many ran in the window). A read-only handle: the values live in
    sealed code (its properties are sealed functions, set by :func:`_build`), the class is immutable."""

    __slots__ = ()


class _Window:
    """The context manager :func:`observe_peak_memory` returns (sealed ``__enter__``/``__exit__``)."""

    __slots__ = ()


def _build() -> tuple[Any, Any]:
    """The sealed ``observe_peak_memory`` and ``watching`` (is a window open?), built once, at
    import in the zygote: their state lives only in their constants."""
    import weakref

    import torch
    from torch.utils._python_dispatch import TorchDispatchMode

    base: Any = torch._C.TensorBase.__dict__
    common: dict[str, Any] = {
        "WINDOWS": [],
        "RECORDS": {},
        "WINDOW_RECORDS": {},
        "REFS": {},
        "INF": float("inf"),
    }
    storage_of = sealed.seal(
        _storage_of_template,
        TENSOR=torch.Tensor,
        PARAMETER=torch.nn.Parameter,
        UNTYPED_STORAGE=base["untyped_storage"],
        NO_SUBCLASS_HANDLERS=torch._C.DisableTorchFunctionSubclass,
    )
    released = sealed.seal(_released_template, **common)
    touch = sealed.seal(
        _touch_template,
        NBYTES=torch._C.StorageBase.__dict__["nbytes"],
        REF=weakref.ref,
        RELEASED=released,
        **common,
    )
    seen = sealed.seal(
        _seen_template,
        SUBCLASS=type.__subclasscheck__,
        TENSOR_BASE=torch._C.TensorBase,
        STORAGE_OF=storage_of,
        TOUCH=touch,
        **common,
    )
    handler = sealed.seal(_handler_template, SEEN=seen, **common)
    stack = {
        "MODE": sealed.mode_class("JudgePeakMemoryWatch", TorchDispatchMode, handler)(),
        "push_dispatch": torch._C._push_on_torch_dispatch_stack,
    }
    readers = {"live_bytes": _live_template, "peak_bytes": _peak_template, "operations": _operations_template}
    sealed.sealed_class(
        PeakMemory,
        __repr__=sealed.seal(_repr_template, int_repr=int.__repr__, **common),
        **{name: property(sealed.seal(template, **common)) for name, template in readers.items()},
    )
    close = sealed.seal(_close_template, TAKE_OFF=sealed.mode_taker(stack["MODE"]), **stack, **common)
    sealed.sealed_class(
        _Window,
        __enter__=sealed.seal(_enter_template, **stack, **common),
        __exit__=sealed.seal(_exit_template, CLOSE=close, **common),
    )
    observe = sealed.seal(
        _observe_template,
        STORAGE_OF=storage_of,
        NBYTES=torch._C.StorageBase.__dict__["nbytes"],
        RECORD_CLASS=PeakMemory,
        WINDOW_CLASS=_Window,
        **common,
    )
    return observe, sealed.seal(_watching_template, **common)


# Built once, when the zygote imports this module (the module is read-only from then on):
# ``observe_peak_memory(ignore=())`` is a sealed function, as ``check_call`` is.
observe_peak_memory, WATCHING = _build()
