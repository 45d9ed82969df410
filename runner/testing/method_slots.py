"""``nn.Module``'s hook registration methods held in slots, so the problem's tests change them without
writing the class.

A problem's ``tests.py`` (a spy on ``register_full_backward_hook``) and ``observe_hooks`` replace
these methods for a case and put them back (``set_class_attribute``). A write to ``nn.Module``
resets the version tags of every subclass of it (``runner.testing.class_versions`` watches ~300 of
them, so all hold one), and taking them again writes each type object: in a job, a copy-on-write
page each, ~1.5 ms the first time and ~0.2 ms each time after. So the zygote, once (after the hook
observers' wrappers are in place, before it records the tags: ``guard.KeySlotGuard``), puts in the
class's namespace for each method a descriptor whose ``__get__`` returns what its slot holds
(bound to the instance, as a function in the class would be), and ``set_class_attribute`` writes
the slot instead of the class: no tag moves.

What judged code can reach does not change: ``nn.Module.register_forward_hook`` and
``module.register_forward_hook`` are what the slot holds (the guard's wrapper, or the problem's spy
around it), the class stays read-only, each descriptor's class is immutable and its ``__get__`` a
sealed function whose slot is one of its constants (``runner.testing.sealed``); only the sealed
writer holds the slots besides. A method deleted or assigned by other means (``tests.py`` at
import, before the guard) is a plain class attribute again, written as any other.
"""

from __future__ import annotations

import types
from collections.abc import Callable, Iterable
from typing import Any

from runner.testing import sealed

# The names the templates use; seal() binds each to a constant. Never read at run time.
SLOT: Any = None
SLOTS: Any = None
FUNCTION: Any = None
BIND: Any = None
TYPE_DICT: Any = None
STR_COPY: Any = None


def _get_template(descriptor: Any, instance: Any, owner: Any = None) -> Any:
    """What the class attribute reads as: the slot's value, bound to ``instance`` as the class's
    own attribute would be (a function becomes a method; another descriptor's ``__get__`` runs)."""
    value = SLOT[0]
    if instance is None:
        return value
    if type(value) is FUNCTION:
        return BIND(value, instance)
    get = getattr(type(value), "__get__", None)
    if get is None:
        return value
    return get(value, instance, owner)


def _write_template(cls: Any, names: Any, values: Any) -> bool:
    """Write ``names``' slots of ``cls`` (all or none): False where one is not a slot in place."""
    slots = []
    for name in names:
        name = STR_COPY(name)
        entry = SLOTS.get((cls, name))
        if entry is None or TYPE_DICT(cls).get(name) is not entry[0]:
            return False
        slots.append(entry[1])
    index = 0
    for slot in slots:
        slot[0] = values[index]
        index = index + 1
    return True


sealed.prepare(_get_template, _write_template)

_state: dict[str, Any] = {}


def writer() -> Callable[[Any, Any, Any], bool]:
    """The sealed writer of the slots :func:`place` will make (``frozen_classes``' setter, sealed in
    the zygote's warm-up, before them); the table is kept here until then only."""
    table: dict[tuple[type, str], tuple[Any, list[Any]]] = {}
    _state["table"] = table
    return sealed.seal(
        _write_template, SLOTS=table, TYPE_DICT=type.__dict__["__dict__"].__get__, STR_COPY=str.__str__
    )


def place(cls: type, names: Iterable[str]) -> int:
    """In the zygote, once: ``cls.name`` for each of ``names`` held in a slot from now on (its
    value as it is now); how many. Nothing where no writer was made (a process that is not a
    zygote's) or after the first call: the table is let go of here."""
    table = _state.pop("table", None)
    if table is None:
        return 0
    placed = 0
    for name in names:
        slot = [cls.__dict__[name]]
        getter = sealed.seal(_get_template, SLOT=slot, FUNCTION=types.FunctionType, BIND=types.MethodType)
        holder = type(f"{cls.__name__}.{name}", (), {"__slots__": (), "__get__": getter})
        sealed.make_immutable(holder)  # its __get__ cannot be replaced
        descriptor = holder()
        type.__setattr__(cls, name, descriptor)
        table[(cls, name)] = (descriptor, slot)
        placed += 1
    return placed
