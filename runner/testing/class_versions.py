"""torch's writable classes, watched: a change made while judged code runs is reported, restored or not.

``runner.testing.frozen_classes`` makes ``nn.Module``, the optimizers and the autograd functions
read-only, but most of torch's classes cannot be: PyTorch assigns an instance's ``__class__`` between
``nn.Module`` subclasses and tensor classes (parametrizations, lazy modules,
``UninitializedParameter``), which CPython refuses for immutable types. So ``nn.Linear.forward = f``,
``setattr(nn.Sequential, "__call__", f)`` or a write undone before the case ends stay possible; this
module makes each of them visible instead.

CPython 3.11 gives every type a *version tag* (``tp_version_tag``, for its method cache): any change
to a type's attributes (``type.__setattr__``, ``setattr``, ``__bases__``, a base class's change)
calls ``PyType_Modified``, which sets the tag to 0 and the tags of every subclass with it, and the
next lookup takes a new tag from a process-wide counter that never goes back. A tag recorded when
the guard comes into force that differs at a case's end therefore means the class was changed since
— even if every attribute was put back. :func:`prepare` (the zygote, once) finds the field by
experiment (a probe class must show exactly this behaviour, or the judge refuses to start) and
collects torch's writable classes; the zygote records their tags (:func:`baseline`) after it puts
the hook observers' wrappers and slots on ``nn.Module`` (``guard.KeySlotGuard``), the guard records again
only those that moved since as it comes into force (none when nothing wrote a class in between)
and, at each case's end, sends ``tampered`` naming every class whose tag moved (``check``). The problem's
``tests.py`` changes classes only through ``set_class_attribute``, which checks before its write and
records the new tags after it (the change cascades to subclasses: writing ``nn.Module`` moves every
module class's tag; its hook registration methods are written into slots instead, which move none:
``runner.testing.method_slots``).

Not watched: classes torch itself writes at run time (``RemovableHandle`` counts ids in a class
attribute, and its subclasses), classes created after the guard (a learner's own, parametrizations'
injected subclasses) and classes already immutable (built-in, C and ``frozen_classes``' ones).
A change that never goes through the type (a function object in a class's namespace given a new
``__code__`` or defaults) does not move a tag: the audit hook refuses those on torch's functions.
"""

from __future__ import annotations

import sys
from typing import Any

from runner.testing import sealed

# The names the templates use; seal() binds each to a constant. Never read at run time.
MEMORY: Any = None
WORD: Any = None
READ_ALL: Any = None
BASE: Any = None
TAINTED: Any = None
CLASSES: Any = None
LOOKUP: Any = None
NAMES: Any = None
EMIT: Any = None
CHECK: Any = None
LIST: Any = None
SUBTREES: Any = None
SUBCLASS: Any = None
UNDER: Any = None
VIEW: Any = None
INDEX: Any = None
GATHER: Any = None
EQUAL: Any = None
LAST: Any = None


def _check_template() -> None:
    """Mark every class whose tag differs from the recorded one as changed (kept for good)."""
    now = GATHER(VIEW, 0, INDEX)
    if EQUAL(now, LAST[0]):  # the tags the last check found as recorded: nothing moved since
        return
    current = LIST(READ_ALL(MEMORY))
    if current == BASE:
        LAST[0] = now
        return
    index = 0
    for tag in current:
        if tag != BASE[index]:
            TAINTED[index] = True
        index = index + 1


def _baseline_template() -> None:
    """Record the tags as they are now (taking a new tag where a change set it to 0), except for
    classes already marked changed."""
    if EQUAL(GATHER(VIEW, 0, INDEX), LAST[0]):
        return
    current = LIST(READ_ALL(MEMORY))
    if current == BASE:
        return
    index = 0
    for tag in current:
        if tag != BASE[index] and not TAINTED[index]:
            if tag == 0:
                LOOKUP(CLASSES[index], "__init__")  # the method cache assigns a new tag
                tag = MEMORY[WORD[index]]
            BASE[index] = tag
        index = index + 1
    if True not in TAINTED:  # the tags now are the recorded ones
        LAST[0] = GATHER(VIEW, 0, INDEX)


def _under_template(cls: Any) -> Any:
    """The indices of the watched classes that are ``cls`` or its subclasses (cached per class)."""
    indices = SUBTREES.get(cls)
    if indices is None:
        indices = []
        index = 0
        for watched in CLASSES:
            if SUBCLASS(cls, watched):
                indices.append(index)
            index = index + 1
        SUBTREES[cls] = indices
    return indices


def _check_under_template(cls: Any) -> None:
    """Before a write by the problem's tests to ``cls``: the change judged code made there is kept."""
    for index in UNDER(cls):
        if MEMORY[WORD[index]] != BASE[index]:
            TAINTED[index] = True


def _baseline_under_template(cls: Any) -> None:
    """After that write: the new tags of ``cls`` and its subclasses (the change cascades to them)."""
    for index in UNDER(cls):
        if not TAINTED[index]:
            tag = MEMORY[WORD[index]]
            if tag == 0:
                LOOKUP(CLASSES[index], "__init__")
                tag = MEMORY[WORD[index]]
            BASE[index] = tag


def _report_template() -> None:
    """At a case's end: a ``tampered`` event naming the changed classes (bases first: a change moves
    the tags of the class's subclasses with it), at most three."""
    CHECK()
    if True not in TAINTED:
        return
    index = 0
    sent = 0
    for changed in TAINTED:
        if changed and sent < 3:
            EMIT("tampered", "torch's class " + NAMES[index] + " was changed while your code ran")
            sent = sent + 1
        index = index + 1


sealed.prepare(
    _check_template,
    _baseline_template,
    _report_template,
    _under_template,
    _check_under_template,
    _baseline_under_template,
)

_VALID_VERSION_TAG = 1 << 19  # Py_TPFLAGS_VALID_VERSION_TAG (CPython 3.11)
_IMMUTABLE_TYPE = 1 << 8  # Py_TPFLAGS_IMMUTABLETYPE


def _tag_offset() -> int:
    """Where ``tp_version_tag`` sits in a type object: the one 32-bit word of a probe class that
    is non-zero after a lookup, 0 after a change, and a new non-zero value after the next lookup."""
    import ctypes

    class Probe:
        pass

    def words() -> dict[int, int]:
        start = sealed.tp_flags_offset()
        return {off: ctypes.c_uint.from_address(id(Probe) + off).value for off in range(start, 64 * 8, 4)}

    type.__getattribute__(Probe, "__init__")
    before = words()
    valid_before = Probe.__flags__ & _VALID_VERSION_TAG
    Probe.changed = True  # type: ignore[attr-defined]
    after = words()
    valid_after = Probe.__flags__ & _VALID_VERSION_TAG
    type.__getattribute__(Probe, "__init__")
    again = words()
    found = [o for o in before if before[o] != 0 and after[o] == 0 and again[o] not in (0, before[o])]
    if len(found) != 1 or not valid_before or valid_after:
        raise sealed.SealError("could not find tp_version_tag: torch's classes cannot be watched")
    return found[0]


# torch's classes that torch itself writes at run time, by its public API or lazily on first use
# (module, class): they and their subclasses, whose tags move with them, are not watched.
SELF_WRITTEN = (
    ("torch.utils.hooks", "RemovableHandle"),  # counts handles' ids in a class attribute
    ("torch.utils.checkpoint", "DefaultDeviceType"),  # the device, on first use or set_checkpoint_device
    ("torch.distributions.distribution", "Distribution"),  # Distribution.set_default_validate_args
    ("torch.sparse.semi_structured", "SparseSemiStructuredTensor"),  # a warning flag, on first use
    ("torch.utils.data.datapipes.datapipe", "IterDataPipe"),  # set_getstate_hook, set_reduce_ex_hook
    ("torch.utils.data.datapipes.datapipe", "MapDataPipe"),
)


def _unwatched() -> tuple[type, ...]:
    """:data:`SELF_WRITTEN`'s classes whose modules are loaded (the others are not watched anyway:
    importing them here would only make every fork larger)."""
    found = []
    for module_name, name in SELF_WRITTEN:
        module = sys.modules.get(module_name)
        cls = getattr(module, name, None) if module is not None else None
        if isinstance(cls, type):
            found.append(cls)
    return tuple(found)


# torch's public packages the source policy refuses to judged code (or that hold no state a check
# reads: devices, distributed, export and compilation): their classes are not watched.
UNREACHED = frozenset(
    {
        "ao",
        "backends",
        "compiler",
        "cuda",
        "distributed",
        "export",
        "fx",
        "jit",
        "mps",
        "mtia",
        "multiprocessing",
        "onnx",
        "package",
        "profiler",
        "quantization",
        "xpu",
    }
)


def _within_reach(module: str) -> bool:
    """Whether judged code can name classes of ``module`` under the source policy: one of torch's
    public modules (no ``_`` part), outside :data:`UNREACHED`. The rest are reachable only by routes
    the policy refuses (private names, ``__mro__``, ``__subclasses__``), and watching every class costs a
    read per class at every case's end."""
    parts = module.split(".")
    if parts[0] != "torch" or any(part.startswith("_") for part in parts):
        return False
    return len(parts) < 2 or parts[1] not in UNREACHED


def classes(exclude: frozenset[type] = frozenset()) -> list[type]:
    """torch's writable classes loaded now: every class whose ``__module__`` is torch's, but the
    immutable ones, ``exclude`` (the classes ``frozen_classes`` makes immutable) and
    :func:`_unwatched`."""
    unwatched = _unwatched()
    found: list[type] = []
    seen: set[type] = set()
    stack: list[type] = [object]
    while stack:
        subclasses: list[type] = type.__subclasses__(stack.pop())
        for cls in subclasses:
            if cls in seen:
                continue
            seen.add(cls)
            stack.append(cls)
            module = cls.__dict__.get("__module__", "")
            if (
                type(module) is str
                and _within_reach(module)
                and not cls.__flags__ & _IMMUTABLE_TYPE
                and not issubclass(cls, unwatched)
                and cls not in exclude
            ):
                found.append(cls)
    return found


_state: dict[str, Any] = {}


def prepare(exclude: frozenset[type] = frozenset(), written: tuple[type, ...] = ()) -> None:
    """In the zygote, once, after its warm-up (the classes it loaded are the ones watched).
    ``written``: classes the problems' tests write (``nn.Module``): which watched classes are
    under them is found now, not in each job."""
    import ctypes
    import operator

    import torch

    if "words" in _state:
        return
    sealed.require_supported()
    offset = _tag_offset()
    watched = sorted(classes(exclude), key=lambda cls: len(cls.__mro__))  # bases first
    for cls in watched:
        type.__getattribute__(cls, "__init__")
    # c_uint made immutable first: the array's items are read through it, which judged code could
    # otherwise give a property that lies
    sealed.make_immutable(ctypes.c_uint)
    memory, word = _tag_view([id(cls) + offset for cls in watched])
    read_all = operator.itemgetter(*word) if len(word) > 1 else (lambda view: tuple(view[i] for i in word))
    # The same words as one tensor gathered from a view of that memory: a case's end compares them
    # with the last tags found as recorded in two torch calls, not one Python int per class.
    view = torch.frombuffer(memory, dtype=torch.int32)
    index = torch.tensor(word, dtype=torch.int64)
    common = {
        "MEMORY": memory,
        "WORD": word,
        "READ_ALL": read_all,
        "BASE": list(read_all(memory)),
        "TAINTED": [False] * len(word),
        "LIST": list,
        "VIEW": view,
        "INDEX": index,
        "GATHER": torch.index_select,
        "EQUAL": torch.equal,
        "LAST": [torch.index_select(view, 0, index)],
    }
    check = sealed.seal(_check_template, **common)
    under = sealed.seal(_under_template, SUBTREES={}, SUBCLASS=type.__subclasscheck__, CLASSES=tuple(watched))
    for cls in written:
        under(cls)
    _state["under"] = (
        sealed.seal(_check_under_template, UNDER=under, **common),
        sealed.seal(
            _baseline_under_template,
            UNDER=under,
            CLASSES=tuple(watched),
            LOOKUP=type.__getattribute__,
            **common,
        ),
    )
    _state["words"] = word
    _state["check"] = check
    _state["baseline"] = sealed.seal(
        _baseline_template, CLASSES=tuple(watched), LOOKUP=type.__getattribute__, **common
    )
    _state["names"] = tuple(f"{cls.__module__}.{cls.__qualname__}" for cls in watched)
    _state["common"] = common


def _tag_view(addresses: list[int]) -> tuple[Any, tuple[int, ...]]:
    """One ``c_uint`` array over the memory from the lowest tag to the highest, and each tag's index
    in it. A case's end first gathers the tags as one tensor from a view of this array
    (``torch.index_select``) and compares it with the last tags found as recorded
    (``torch.equal``): two C calls, ~5 us for ~760 classes where a list of them took ~37 us hot and
    ~0.27 ms a case in a fresh fork (docs/benchmarks.md). Only when a tag moved does it read them one
    by one (``itemgetter``, one C call that touches only this array, the type objects and new ints):
    no per-class object whose reference count a fresh fork would copy a page for (710 ``c_uint``
    objects, one each, cost ~50 page faults a job). Nothing is allocated: the array is a view of
    memory that exists already."""
    import ctypes

    low = min(addresses, default=0)
    if any((address - low) % 4 for address in addresses):
        raise sealed.SealError(
            "the type objects' version tags are not aligned: torch's classes cannot be watched"
        )
    array_type = ctypes.c_uint * ((max(addresses, default=0) - low) // 4 + 1)
    # immutable first, as c_uint: its item reads go through the class, which judged code could
    # otherwise give a __getitem__ that lies (ctypes caches array types by length)
    sealed.make_immutable(array_type)
    return array_type.from_address(low), tuple((address - low) // 4 for address in addresses)


def watched() -> int:
    """How many classes are watched (0 before :func:`prepare`)."""
    return len(_state.get("words", ()))


def tags() -> tuple[int, ...]:
    """The watched classes' version tags now, in the record's order (empty before :func:`prepare`):
    a job's guard should start from the ones the zygote took (``guard.KeySlotGuard``)."""
    common = _state.get("common")
    return tuple(common["READ_ALL"](common["MEMORY"])) if common is not None else ()


def baseline() -> None:
    """Record the classes' tags now (the guard, as it comes into force; ``set_class_attribute``
    after a write by the problem's tests). Nothing before :func:`prepare`."""
    record = _state.get("baseline")
    if record is not None:
        record()


def sealed_functions() -> tuple[Any, Any] | None:
    """The sealed check and baseline of one class and its subclasses (``f(cls)``), for
    ``frozen_classes``' writer; None before :func:`prepare`."""
    under: tuple[Any, Any] | None = _state.get("under")
    return under


def seal_report(emit: Any) -> Any:
    """The end-of-case report around the job's emitter (``guard``); a no-op before :func:`prepare`."""
    if "check" not in _state:
        return sealed.seal(_noop_template)
    return sealed.seal(
        _report_template, EMIT=emit, CHECK=_state["check"], NAMES=_state["names"], **_state["common"]
    )


def _noop_template() -> None:
    return None


sealed.prepare(_noop_template)
