"""torch's mutable classes, read-only to judged code once the guard is in force.

``nn.Module``, ``torch.optim.Optimizer``, ``torch.autograd.Function`` and torch's optimizers and
autograd functions are ordinary Python classes: ``nn.Module.__call__ = f``, ``type(opt).step = f``
or ``L = torch.optim.SGD; L.step = f`` would change what the problems' tests and the checks do with
them, by a spelling the source policy cannot always name (an alias, a class reached through a
value). The tensor classes are the guard's (``guard.protected_classes``). :func:`activate` sets
CPython's ``Py_TPFLAGS_IMMUTABLETYPE`` on each class, so every such assignment raises ``TypeError``
like on a built-in type, whatever the spelling. It runs when the guard comes into force (after the
observers' wrappers are put on ``nn.Module``, before the learner's import) from flag words found
once in the zygote (:func:`prepare`), so a job pays a store per class.

The problem's ``tests.py`` may still wrap a method per case (a spy on ``Optimizer.__init__``, a
counter on ``register_forward_hook``): :func:`set_class_attribute`, a sealed function that lets only
a frame whose globals are ``tests.py``'s (``runner.testing.frozen_modules``' record, which judged
code cannot forge) or ``runner.testing``'s own (``observe_hooks``, with names and values judged code
does not choose) clear the flag, assign and set it again (several names in one call: a tuple of
names and one of values). Each such write first checks, then records again, the version tags of the
class and its subclasses (``runner.testing.class_versions``, which watches torch's classes that
cannot be made read-only), but a write to ``nn.Module``'s hook registration methods, which go to
their slots and leave the class as it is (``runner.testing.method_slots``). Classes a learner
defines stay theirs.

torch itself writes one such attribute at run time: ``Optimizer.__init__`` wraps its class's
``step`` once (``_patch_step_function``); :func:`prepare` does it for every optimizer of torch's
first, so constructing one never needs to.
"""

from __future__ import annotations

import sys
import types
from collections.abc import Callable
from typing import Any

from runner.testing import class_versions, frozen_modules, method_slots, sealed

IMMUTABLE = 1 << 8  # Py_TPFLAGS_IMMUTABLETYPE

# The names the templates use; seal() binds each to a constant. Never read at run time.
WORDS: Any = None
GET_FRAME: Any = None
TESTS: Any = None
SET: Any = None
DELETE: Any = None
STR_COPY: Any = None


def _activate_template(words: Any) -> int:
    n = 0
    for word in words:
        value = word.value
        if not value & IMMUTABLE_BIT:  # set already (the zygote's, ahead): not written again
            word.value = value | IMMUTABLE_BIT
            n = n + 1
    return n


def _set_class_attribute_template(cls: Any, name: Any, value: Any = None, delete: bool = False) -> None:
    """Assign (or delete) ``cls.name`` from the problem's ``tests.py`` only (a class of torch's, or a
    read-only module: both are what the tests' counters wrap)."""
    caller = GET_FRAME(1).f_globals
    if not ((caller is TESTS[0] and TESTS[0] is not None) or caller is JUDGE_GLOBALS):
        raise TypeError("only the problem's tests may change torch's classes while your code runs")
    # several names at once (tuples of names and values): one check and one record of the class's
    # version tags for all of them (runner.testing.class_versions), as observe_hooks does
    if type(name) is tuple:
        names = name
        values = value
    else:
        names = (name,)
        values = (value,)
    if not isinstance(cls, type):
        # a module's namespace through the base setters (a read-only module's own would see this
        # sealed frame as its caller); anything else as setattr would
        index = 0
        for one in names:
            one = STR_COPY(one)
            if isinstance(cls, MODULE_TYPE):
                if delete:
                    MODULE_DELETE(cls, one)
                else:
                    MODULE_SET(cls, one, values[index])
            elif delete:
                delattr(cls, one)
            else:
                setattr(cls, one, values[index])
            index = index + 1
        return
    if not delete and WRITE_SLOTS(cls, names, values):
        return  # nn.Module's hook methods: their slots, the class unwritten (runner.testing.method_slots)
    VERSIONS[0](cls)  # a change judged code made before this write is reported, never absorbed
    word = WORDS.get(cls)
    before = word.value if word is not None else 0  # read-only once the guard is in force
    if word is not None:
        word.value = before & ~IMMUTABLE_BIT
    try:
        index = 0
        for one in names:
            one = STR_COPY(one)
            if delete:
                DELETE(cls, one)
            else:
                SET(cls, one, values[index])
            index = index + 1
    finally:
        if word is not None:
            word.value = word.value | (before & IMMUTABLE_BIT)
        VERSIONS[1](cls)  # the write moved the tags of cls and its subclasses: record the new ones


IMMUTABLE_BIT: Any = None
MODULE_TYPE: Any = None
JUDGE_GLOBALS: Any = None
MODULE_SET: Any = None
MODULE_DELETE: Any = None
VERSIONS: Any = None
WRITE_SLOTS: Any = None

sealed.prepare(_activate_template, _set_class_attribute_template)


def classes() -> list[type]:
    """The classes made read-only: ``nn.Module`` itself, and ``torch.optim.Optimizer`` and
    ``torch.autograd.Function`` with every subclass of them defined in torch's own modules, loaded
    now. Not ``nn.Module``'s subclasses nor the tensor classes beyond the guard's own: PyTorch
    reassigns an instance's ``__class__`` between them (parametrizations, lazy modules,
    ``UninitializedParameter``), which CPython allows only between mutable classes. Not
    ``RemovableHandle``: torch counts its ids in a class attribute (the hook observers wrap its
    ``remove`` and read the real tables instead)."""
    import torch

    found: dict[type, None] = {torch.nn.Module: None}
    stack: list[type] = [torch.optim.Optimizer, torch.autograd.Function]
    while stack:
        cls = stack.pop()
        module = getattr(cls, "__module__", "") or ""
        if cls in found or not (module == "torch" or module.startswith("torch.")):
            continue
        found[cls] = None
        stack.extend(type.__subclasses__(cls))
    return list(found)


def _hook_optimizer_steps() -> None:
    """Wrap each of torch's optimizers' ``step`` as ``Optimizer.__init__`` would on first use."""
    import torch

    for cls in classes():
        if issubclass(cls, torch.optim.Optimizer) and cls is not torch.optim.Optimizer:
            step = cls.__dict__.get("step")
            if step is not None and not getattr(step, "hooked", False):
                cls.step = torch.optim.Optimizer.profile_hook_step(step)  # type: ignore[method-assign,assignment]
                cls.step.hooked = True  # type: ignore[attr-defined]


_state: dict[str, Any] = {}


def prepare() -> None:
    """In the zygote, once, after its warm-up: hook torch's optimizers' steps, find each class's flag
    word, and watch torch's other classes (``runner.testing.class_versions``)."""
    import ctypes

    import torch

    if "activate" in _state:
        return
    _hook_optimizer_steps()
    class_versions.prepare(exclude=frozenset(classes()), written=(torch.nn.Module, torch.optim.Optimizer))
    versions = class_versions.sealed_functions()
    offset = sealed.tp_flags_offset()
    words: dict[type, Any] = {}
    for cls in classes():
        word = ctypes.c_ulong.from_address(id(cls) + offset)
        if word.value != cls.__flags__:
            raise sealed.SealError("could not find tp_flags")
        words[cls] = word
    common = {"WORDS": words, "IMMUTABLE_BIT": IMMUTABLE}
    _state["activate"] = sealed.seal(_activate_template, **common)
    _state["all"] = tuple(words.values())
    _state["ahead"] = tuple(word for cls, word in words.items() if cls is not torch.nn.Module)
    _state["late"] = (words[torch.nn.Module],)
    setter = sealed.seal(
        _set_class_attribute_template,
        GET_FRAME=sys._getframe,
        TESTS=frozen_modules.tests_slot(),
        # runner.testing's own functions (observe_hooks wraps nn.Module's registrations per block)
        JUDGE_GLOBALS=vars(sys.modules["runner.testing"]),
        SET=type.__setattr__,
        DELETE=type.__delattr__,
        MODULE_TYPE=types.ModuleType,
        MODULE_SET=types.ModuleType.__setattr__,
        MODULE_DELETE=types.ModuleType.__delattr__,
        STR_COPY=str.__str__,
        VERSIONS=versions if versions is not None else (_nothing, _nothing),
        WRITE_SLOTS=method_slots.writer(),
        **common,
    )
    # The sealed function is the public name from now on (the zygote, before its modules are made
    # read-only): the caller it checks is the frame that calls it, with nothing between.
    _state["set"] = setter
    for module_name in (__name__, "runner.testing"):
        module = sys.modules.get(module_name)
        if module is not None:
            sealed.set_attribute(module, "set_class_attribute", setter)


def _nothing(cls: type) -> None:
    return None


def activate(ahead: bool = False) -> int:
    """Make the classes read-only (the guard, once in force); how many were not already. With
    ``ahead``, only ``nn.Module``: :func:`activate_ahead` did the others in the zygote. Nothing
    before :func:`prepare` (tests of the harness in-process)."""
    activate_now: Callable[[Any], int] | None = _state.get("activate")
    return activate_now(_state["late" if ahead else "all"]) if activate_now is not None else 0


def activate_ahead() -> int:
    """In the zygote, once the guard is sealed: every class read-only now but ``nn.Module``, so a
    job's guard writes one type object for them, not ~220 (each a copy-on-write fault of a page the
    job shares with the zygote: ~0.7 ms a job). ``nn.Module`` waits for the guard: the problem's
    ``tests.py`` may still replace one of its hook methods as it loads (the guard then wraps
    theirs: ``runner.testing.guard.PendingGuard``). The others are read-only to ``tests.py`` from
    the start, which writes them through :func:`set_class_attribute` anyway."""
    activate_now: Callable[[Any], int] | None = _state.get("activate")
    return activate_now(_state["ahead"]) if activate_now is not None else 0


def set_class_attribute(cls: type, name: str | tuple[str, ...], value: Any) -> None:
    """For the problem's ``tests.py``: ``cls.name = value`` on one of torch's classes (a per-case
    spy or counter), which judged code cannot do; with a tuple of names, ``value`` is the tuple of
    their values. In a prepared process (the zygote and its jobs) this name is the sealed function
    :func:`prepare` made; elsewhere plain ``setattr``."""
    if isinstance(name, tuple):
        for one, each in zip(name, value, strict=True):
            setattr(cls, one, each)
    else:
        setattr(cls, name, value)
