"""Lazy modules' one change of a tensor's class, let through the guard and nothing beside it.

``nn.LazyLinear``, ``nn.LazyBatchNorm1d``, ``nn.LazyConv2d``, … hold ``UninitializedParameter`` and
``UninitializedBuffer`` objects until their first forward, when torch's
``UninitializedTensorMixin.materialize`` gives each its data and assigns ``self.__class__ =
self.cls_to_become`` (``nn.Parameter``, or ``torch.Tensor`` for a buffer). Once the guard is in
force ``torch.Tensor`` is immutable (``guard.protected_classes``), and CPython refuses a
``__class__`` assignment to an immutable class, so every lazy module with a buffer failed.

The guard replaces ``materialize`` with a sealed function that makes exactly that transition: an
object whose class is exactly torch's ``UninitializedParameter`` or ``UninitializedBuffer`` becomes
exactly the class torch's own ``cls_to_become`` named when the guard was sealed (a learner's
subclass, with its own ``cls_to_become``, and any other tensor are refused before anything is
changed). For the assignment itself it writes a *permit* — this object, this class — into a cell
that only it and the audit hook hold (sealed constants both), lifts the target's immutable flag,
assigns, and puts both back, with the collector off so no finalizer runs in between. The audit hook
(``runner.testing.audit_hook``) refuses every other ``__class__`` assignment on a tensor, whatever
the spelling (``t.__class__ = …``, ``object.__setattr__``, a parameter's class swapped for a
subclass), so the opening is this one call's.
"""

from __future__ import annotations

import gc
from typing import Any

from runner.testing import sealed

REFUSED = (
    "materialize() only gives data to torch's own nn.UninitializedParameter and nn.UninitializedBuffer "
    "(a lazy module does it on its first forward)"
)

# The names the template uses; seal() binds each to a constant. Never read at run time.
BECOMES: Any = None  # ((uninitialised class, the class it becomes, that class's tp_flags word), ...)
PERMIT: Any = None  # [object, class] while the assignment runs; [None, None] otherwise
IMMUTABLE: Any = None
DATA_GET: Any = None
DATA_SET: Any = None
EMPTY: Any = None
SET_CLASS: Any = None
WORD_GET: Any = None
WORD_SET: Any = None
GC_ENABLED: Any = None
GC_DISABLE: Any = None
GC_ENABLE: Any = None


def _materialize_template(self: Any, shape: Any, device: Any = None, dtype: Any = None) -> None:
    target = None
    word = None
    kind = type(self)
    for uninitialised, becomes, flags in BECOMES:
        if kind is uninitialised:
            target = becomes
            word = flags
    if target is None:
        raise TypeError(REFUSED)
    if device is None:
        device = DATA_GET(self).device
    if dtype is None:
        dtype = DATA_GET(self).dtype
    DATA_SET(self, EMPTY(shape, device=device, dtype=dtype))
    collecting = GC_ENABLED()
    GC_DISABLE()
    flags = WORD_GET(word)
    try:
        PERMIT[0] = self
        PERMIT[1] = target
        WORD_SET(word, flags & ~IMMUTABLE)
        SET_CLASS(self, target)
    finally:
        WORD_SET(word, flags)
        PERMIT[0] = None
        PERMIT[1] = None
        if collecting:
            GC_ENABLE()


sealed.prepare(_materialize_template)


def targets() -> list[tuple[Any, str, Any]]:
    """What the guard replaces here, as it is now: ``(owner, name, value)``."""
    import torch.nn.parameter

    mixin = vars(torch.nn.parameter)["UninitializedTensorMixin"]
    return [(mixin, "materialize", mixin.__dict__["materialize"])]


def prepare(permit: list[Any]) -> list[sealed.Patch]:
    """The sealed ``materialize`` around ``permit`` (the cell the audit hook is sealed with too),
    as a patch: the zygote puts it in place with the hook observers' wrappers
    (``guard.KeySlotGuard``), a guard sealed on its own when it comes into force."""
    import ctypes

    import torch
    from torch.nn.parameter import UninitializedBuffer, UninitializedParameter

    offset = sealed.tp_flags_offset()
    classes: tuple[Any, ...] = (UninitializedParameter, UninitializedBuffer)
    becomes = tuple(
        (cls, cls.cls_to_become, ctypes.c_ulong.from_address(id(cls.cls_to_become) + offset))
        for cls in classes
    )
    for _, target, word in becomes:
        if word.value != target.__flags__:
            raise sealed.SealError("could not find tp_flags")
    value: Any = ctypes._SimpleCData.__dict__["value"]  # c_ulong's value
    data: Any = torch._C.TensorBase.__dict__["data"]
    materialize = sealed.seal(
        _materialize_template,
        BECOMES=becomes,
        PERMIT=permit,
        IMMUTABLE=sealed.IMMUTABLE_TYPE,
        DATA_GET=data.__get__,
        DATA_SET=data.__set__,
        EMPTY=torch.empty,
        SET_CLASS=object.__dict__["__class__"].__set__,
        WORD_GET=value.__get__,
        WORD_SET=value.__set__,
        GC_ENABLED=gc.isenabled,
        GC_DISABLE=gc.disable,
        GC_ENABLE=gc.enable,
        REFUSED=REFUSED,
    )
    materialize.__doc__ = "Give an uninitialised parameter or buffer its data (torch's, through the judge)."
    return [sealed.Patch(owner, name, original, materialize) for owner, name, original in targets()]
