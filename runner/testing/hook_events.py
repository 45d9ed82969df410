"""Hook registrations and removals as events, for ``observe_hooks`` (judged on the host).

Every ``nn.Module.register_*hook`` method and ``RemovableHandle.remove`` is replaced by a sealed
wrapper (``runner.testing.sealed``) that calls the original and, once the guard is in force (before
the learner's import), sends an event. The zygote puts its wrappers in place once, before it forks,
turned off (each only calls the original); a spare's guard turns its copy on as it comes into force:
a job writes no class, so the version tags of ``nn.Module``'s subclasses, which a write to it would
reset (``runner.testing.class_versions``), stay as the zygote took them. The events:

* ``hook_registered <id> <kind> <module type>`` after a registration;
* ``hook_removed <id>`` when ``remove()`` really took the hook out of the module's table;
* ``hook_state <id> attached|detached`` at the end of an ``observe_hooks`` block and of
  every case, by looking in the module's own hook table (``dict.values``, the exact
  ``OrderedDict`` torch uses, compared by identity), not by trusting a handle;
* ``observe_hooks_begin`` / ``observe_hooks_end`` around the block.

A solution that replaces the methods again, registers by writing into ``module._forward_hooks``
itself, or stubs ``remove`` sends no event for what it did, so the host, which knows from
the reference which hooks a case must see registered and removed, fails the case.

At the same checks the real tables are read, with exact types: a module's table replaced
(``module._forward_hooks = DictSubclass()`` whose ``len()`` is 0 while it still yields hooks), or
a hook in a table that no registration put there (written into it directly, beside a no-op hook
that was registered), sends ``tampered``. The global module hooks
(``torch.nn.modules.module.register_module_forward_hook`` and its siblings, which run on every
module) are observed like a module's: ``hook_registered <id> global_<kind> every module``, so a
global hook that does the work beside a no-op one is a hook the reference did not register.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from runner.testing import sealed

_METHODS = (
    ("register_forward_hook", "_forward_hooks"),
    ("register_forward_pre_hook", "_forward_pre_hooks"),
    ("register_full_backward_hook", "_backward_hooks"),
    ("register_full_backward_pre_hook", "_backward_pre_hooks"),
    ("register_backward_hook", "_backward_hooks"),
)
# torch.nn.modules.module's global hooks: (function, its table), each run on every module.
_GLOBAL_FUNCTIONS = (
    ("register_module_forward_hook", "_global_forward_hooks"),
    ("register_module_forward_pre_hook", "_global_forward_pre_hooks"),
    ("register_module_full_backward_hook", "_global_backward_hooks"),
    ("register_module_full_backward_pre_hook", "_global_backward_pre_hooks"),
    ("register_module_backward_hook", "_global_backward_hooks"),
)


@dataclass(frozen=True)
class HookObserver:
    begin: Callable[[], None]
    end: Callable[[], None]
    end_case_check: Callable[[], None]


# Names the templates use; seal() binds each to a constant. Never read at run time.
ORIGINAL: Any = None
ATTR: Any = None
KIND: Any = None
RECORDS: Any = None
NEXT: Any = None
MARK: Any = None
WINDOW: Any = None
EMIT: Any = None
ATTACHED: Any = None
STATES: Any = None
TYPE_NAME: Any = None
TABLES: Any = None
OWNER: Any = None
UNKNOWN: Any = None
ON: Any = None


get_attr: Any = None
int_repr: Any = None
dict_values: Any = None


def _register_template(module: Any, *args: Any, **kwargs: Any) -> Any:
    handle = ORIGINAL(module, *args, **kwargs)
    if not ON[0]:  # in place before the job's guard is in force: the original alone
        return handle
    hook = args[0] if args else kwargs.get("hook")
    table = get_attr(module, ATTR)
    if type(table) is not OrderedDict and type(table) is not dict:
        EMIT("tampered", "the module's hook table was replaced by a " + TYPE_NAME(table))
        return handle
    NEXT[0] = NEXT[0] + 1
    hid = int_repr(NEXT[0])
    RECORDS.append((hid, table, hook, handle, module, ATTR))
    EMIT("hook_registered", hid, KIND, TYPE_NAME(module))
    return handle


def _register_global_template(*args: Any, **kwargs: Any) -> Any:
    handle = ORIGINAL(*args, **kwargs)
    if not ON[0]:
        return handle
    hook = args[0] if args else kwargs.get("hook")
    table = get_attr(OWNER, ATTR)
    if type(table) is not OrderedDict and type(table) is not dict:
        EMIT("tampered", "torch's global hook table was replaced by a " + TYPE_NAME(table))
        return handle
    NEXT[0] = NEXT[0] + 1
    hid = int_repr(NEXT[0])
    RECORDS.append((hid, table, hook, handle, OWNER, ATTR))
    EMIT("hook_registered", hid, KIND, "every module")
    return handle


def _attached_template(record: tuple[str, Any, Any, Any]) -> bool:
    hook = record[2]
    for value in dict_values(record[1]):  # noqa: SIM110 (any() would need a nested code object)
        if value is hook:
            return True
    return False


def _remove_template(handle: Any) -> None:
    ORIGINAL(handle)
    if not ON[0]:
        return
    for record in RECORDS:
        if record[3] is handle and not ATTACHED(record):
            EMIT("hook_removed", record[0])


def _states_template(first: int) -> None:
    for record in RECORDS[first:]:
        table = get_attr(record[4], record[5])
        if table is not record[1]:
            EMIT("tampered", "a hook table was replaced by a " + TYPE_NAME(table))
        EMIT("hook_state", record[0], "attached" if ATTACHED(record) else "detached")
    for owner_attr in TABLES:  # torch's global tables, as they were at start-up
        if get_attr(owner_attr[0], owner_attr[1]) is not owner_attr[2]:
            EMIT("tampered", "torch's global hook table " + owner_attr[1] + " was replaced")
    for record in RECORDS[first:]:  # every hook in a table a registration put there
        UNKNOWN(record[1])
    for owner_attr in TABLES:
        UNKNOWN(owner_attr[2])


def _unknown_template(table: Any) -> None:
    for value in dict_values(table):
        known = False
        for record in RECORDS:
            if record[1] is table and record[2] is value:
                known = True
                break
        if not known:
            EMIT("tampered", "a hook was written into a hook table without registering it")
            return


def _turn_on_template() -> None:
    ON[0] = True


def _begin_template() -> None:
    WINDOW[0] = len(RECORDS)
    EMIT("observe_hooks_begin")


def _end_template() -> None:
    STATES(WINDOW[0])
    EMIT("observe_hooks_end")


def _end_case_template() -> None:
    STATES(MARK[0])
    MARK[0] = len(RECORDS)


sealed.prepare(
    _register_template,
    _register_global_template,
    _unknown_template,
    _attached_template,
    _remove_template,
    _turn_on_template,
    _states_template,
    _begin_template,
    _end_template,
    _end_case_template,
)


def targets() -> list[tuple[Any, str, Any]]:
    """What the observer replaces, as it is now: ``(owner, name, value)`` each."""
    import torch.nn as nn
    from torch.utils.hooks import RemovableHandle

    found: list[tuple[Any, str, Any]] = [
        (nn.Module, name, getattr(nn.Module, name)) for name, _ in _METHODS if hasattr(nn.Module, name)
    ]
    found.append((RemovableHandle, "remove", RemovableHandle.remove))
    return found + global_targets()


def global_targets() -> list[tuple[Any, str, Any]]:
    """The global hook functions, where torch defines them and where ``torch.nn.modules``
    re-exports them (each name bound in both)."""
    import torch.nn.modules as modules
    import torch.nn.modules.module as module

    names = {name for name, _ in _GLOBAL_FUNCTIONS}
    return [
        (owner, name, getattr(owner, name))
        for owner in (module, modules)
        for name in sorted(names)
        if hasattr(owner, name)
    ]


def prepare(emit: Callable[..., None]) -> tuple[HookObserver, list[sealed.Patch], Callable[[], None]]:
    """Seal wrappers of the registration methods and ``RemovableHandle.remove`` around what they
    are now, and the function that turns them on. They replace what they wrap when the guard comes
    into force (``sealed.apply_patches``), or before: the zygote puts its guard's in place once
    (``guard.KeySlotGuard``), so that no job writes ``nn.Module``. Until turned on (once the
    guard is in force; never off again) each one only calls what it wraps: the switch is a sealed
    constant, which only the sealed function returned here writes."""
    type_name = sealed.type_name_function()
    records: list[tuple[str, Any, Any, Any]] = []
    switch = [False]
    common = {
        "EMIT": emit,
        "RECORDS": records,
        "int_repr": int.__repr__,
        "TYPE_NAME": type_name,
        "ON": switch,
    }
    import torch.nn.modules.module as torch_module

    attached = sealed.seal(_attached_template, dict_values=dict.values)
    counter = [0]
    attrs = dict(_METHODS)
    global_attrs = dict(_GLOBAL_FUNCTIONS)
    patches: list[sealed.Patch] = []
    for owner, name, original in targets():
        if name in global_attrs:
            wrapper = sealed.seal(
                _register_global_template,
                ORIGINAL=original,
                OWNER=torch_module,
                ATTR=global_attrs[name],
                KIND="global_" + name.removeprefix("register_module_"),
                NEXT=counter,
                get_attr=object.__getattribute__,
                OrderedDict=OrderedDict,
                **common,
            )
        elif name == "remove":
            wrapper = sealed.seal(_remove_template, ORIGINAL=original, ATTACHED=attached, **common)
        else:
            wrapper = sealed.seal(
                _register_template,
                ORIGINAL=original,
                ATTR=attrs[name],
                KIND=name.removeprefix("register_"),
                NEXT=counter,
                get_attr=object.__getattribute__,
                OrderedDict=OrderedDict,
                **common,
            )
        patches.append(sealed.Patch(owner, name, original, wrapper))
    tables = tuple(
        (torch_module, attr, getattr(torch_module, attr)) for attr in sorted(set(global_attrs.values()))
    )
    unknown = sealed.seal(_unknown_template, dict_values=dict.values, **common)
    states = sealed.seal(
        _states_template,
        ATTACHED=attached,
        TABLES=tables,
        UNKNOWN=unknown,
        get_attr=object.__getattribute__,
        **common,
    )
    window = [0]
    observer = HookObserver(
        begin=sealed.seal(_begin_template, WINDOW=window, **common),
        end=sealed.seal(_end_template, WINDOW=window, STATES=states, **common),
        end_case_check=sealed.seal(_end_case_template, MARK=[0], STATES=states, **common),
    )
    return observer, patches, sealed.seal(_turn_on_template, ON=switch)
