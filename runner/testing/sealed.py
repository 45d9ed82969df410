"""Functions and classes whose behaviour the learner's code cannot change or look inside.

The harness shares one interpreter with the learner's code, and almost everything in a
Python process can be rewritten from inside it: module attributes, class attributes,
closure cells (``cell_contents``), a function's globals. What Python code cannot reach is
a *code object's constants* once reads of ``__code__`` and ``f_code`` are refused (the audit
hook in ``runner.testing.guard`` refuses them for sealed code), and the attributes of an immutable
type.

:func:`seal` turns a plain function (a *template*) into one whose every global name is a
constant captured now, at start-up, before the learner's code is imported: the sealed
function looks nothing up at call time, so patching ``os``, ``json`` or ``builtins`` later
changes nothing it does, and secrets given to it (the per-job key) live only in its
constants. Templates must not use closures or nested functions (checked here).

:func:`make_immutable` sets CPython's ``Py_TPFLAGS_IMMUTABLETYPE`` on a class, so assigning
its attributes raises ``TypeError`` like for a built-in type. It uses ctypes, which only the
start-up code may use (the guard refuses ctypes to the learner).

CPython 3.11 bytecode is rewritten (``LOAD_GLOBAL`` → ``LOAD_CONST``): another version is
refused at start-up rather than silently unprotected.
"""

from __future__ import annotations

import builtins
import dis
import opcode
import sys
import types
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

# Every sealed function shares this globals dict. Sealed code never reads it (it has no
# global lookups), so what the learner puts in it changes nothing; its identity is how the
# guard tells the judge's frames and functions from everyone else's.
# Its __builtins__ is the real one: C code called from a sealed frame (an import inside torch)
# looks builtins up there, as it would anywhere else.
SEALED_GLOBALS: dict[str, Any] = {"__name__": "runner.testing.sealed.code", "__builtins__": builtins.__dict__}

_LOAD_GLOBAL = opcode.opmap["LOAD_GLOBAL"]
_LOAD_CONST = opcode.opmap["LOAD_CONST"]
_PUSH_NULL = opcode.opmap["PUSH_NULL"]
_NOP = opcode.opmap["NOP"]
_GLOBAL_CACHES = opcode._inline_cache_entries[_LOAD_GLOBAL]  # type: ignore[attr-defined]
_FORBIDDEN_OPS = {
    "LOAD_NAME",
    "STORE_GLOBAL",
    "DELETE_GLOBAL",
    "LOAD_DEREF",
    "STORE_DEREF",
    "LOAD_CLOSURE",
    "MAKE_CELL",
    "COPY_FREE_VARS",
    "MAKE_FUNCTION",
}
_IMMUTABLE_TYPE = 1 << 8  # Py_TPFLAGS_IMMUTABLETYPE
IMMUTABLE_TYPE = _IMMUTABLE_TYPE


class SealError(RuntimeError):
    """A template cannot be sealed (it would look something up at call time)."""


class UnsupportedInterpreter(SealError):
    """The interpreter is not the one sealing (and so the integrity guard) was built for."""


# The interpreter whose bytecode _plan rewrites: its implementation and (major, minor) version.
# Another one is refused at start-up (require_supported), never run without the guard.
BUILT_FOR = ("cpython", (3, 11))


def interpreter() -> tuple[str, tuple[int, int]]:
    """This process's interpreter, as :data:`BUILT_FOR` names one."""
    return sys.implementation.name, (sys.version_info.major, sys.version_info.minor)


def supported() -> bool:
    return interpreter() == BUILT_FOR


def require_supported() -> None:
    """Raise :class:`UnsupportedInterpreter`, saying which interpreter is needed, unless this is it."""
    if not supported():
        name, version = interpreter()
        want_name, want_version = BUILT_FOR
        raise UnsupportedInterpreter(
            f"the judge's integrity guard is built for {_describe(want_name, want_version)}; "
            f"this is {_describe(name, version)} (sys.executable: {sys.executable}). "
            "Run the judge on the interpreter it was built for: it never judges without its guard."
        )


def _describe(name: str, version: tuple[int, int]) -> str:
    return f"{'CPython' if name == 'cpython' else name} {version[0]}.{version[1]}"


_PLANS: dict[types.CodeType, tuple[bytes, tuple[str, ...]]] = {}


def _plan(code: types.CodeType) -> tuple[bytes, tuple[str, ...]]:
    """The template's bytecode with each ``LOAD_GLOBAL`` turned into a ``LOAD_CONST`` of a
    constant appended after its own, and the names those constants stand for (in order)."""
    plan = _PLANS.get(code)
    if plan is not None:
        return plan
    if code.co_freevars or code.co_cellvars:
        raise SealError(f"{code.co_name}: a sealed template cannot use closures")
    for ins in dis.get_instructions(code):
        if ins.opname in _FORBIDDEN_OPS:
            raise SealError(f"{code.co_name}: {ins.opname} is not allowed in a sealed template")
    names: list[str] = []
    raw = bytearray(code.co_code)
    for i in range(0, len(raw), 2):
        if raw[i] != _LOAD_GLOBAL:
            continue
        # EXTENDED_ARG before LOAD_GLOBAL would make the index wider: refuse such templates.
        if i >= 2 and raw[i - 2] == opcode.opmap["EXTENDED_ARG"]:
            raise SealError(f"{code.co_name}: too many names to seal")
        arg = raw[i + 1]
        name = code.co_names[arg >> 1]
        if name not in names:
            names.append(name)
        index = len(code.co_consts) + names.index(name)
        if index > 255:
            raise SealError(f"{code.co_name}: too many constants to seal")
        ops = [_PUSH_NULL, 0] if arg & 1 else []
        ops += [_LOAD_CONST, index]
        ops += [_NOP, 0] * (1 + _GLOBAL_CACHES - len(ops) // 2)
        raw[i : i + 2 * (1 + _GLOBAL_CACHES)] = bytes(ops)
    plan = (bytes(raw), tuple(names))
    _PLANS[code] = plan
    return plan


def prepare(*templates: Callable[..., Any]) -> None:
    """Analyse templates ahead of time (at import, in the zygote), so sealing per job is cheap."""
    if supported():
        for template in templates:
            _plan(template.__code__)


def seal(template: Callable[..., Any], **values: Any) -> types.FunctionType:
    """A copy of ``template`` whose globals are constants: ``values`` first, then the
    template's module globals and builtins *as they are now*."""
    require_supported()
    code = template.__code__
    raw, names = _plan(code)
    module_globals: dict[str, Any] = template.__globals__
    consts = list(code.co_consts)
    for name in names:
        if name in values:
            consts.append(values[name])
        elif name in module_globals:
            consts.append(module_globals[name])
        elif hasattr(builtins, name):
            consts.append(getattr(builtins, name))
        else:
            raise SealError(f"{code.co_name}: {name} is not defined")
    sealed_code = code.replace(co_code=raw, co_consts=tuple(consts))
    function = types.FunctionType(sealed_code, SEALED_GLOBALS, code.co_name, template.__defaults__)
    function.__qualname__ = template.__qualname__
    return function


@dataclass(frozen=True)
class Patch:
    """One attribute the guard replaces when it comes into force: ``owner.name``, which held
    ``original`` when ``replacement`` (sealed around it) was made."""

    owner: Any
    name: str
    original: Any
    replacement: Any


def apply_patches(patches: Sequence[Patch], now: Sequence[tuple[Any, str, Any]]) -> bool:
    """Put every patch in place, if they are exactly the ones that would be made ``now``
    (``(owner, name, current value)`` of every target, compared by identity; a target that holds
    its patch's replacement already, put there ahead by the zygote, is left as it is); else change
    nothing and return False: something changed since they were sealed (the problem's
    ``tests.py`` is loaded in between), so the caller seals afresh around what is there now."""
    if len(patches) != len(now):
        return False
    for patch, (owner, name, value) in zip(patches, now, strict=True):
        if patch.owner is not owner or patch.name != name:
            return False
        if patch.original is not value and patch.replacement is not value:
            return False
    for patch, (_, _, value) in zip(patches, now, strict=True):
        if value is not patch.replacement:  # each write to a class moves its version tags
            set_attribute(patch.owner, patch.name, patch.replacement)
    return True


def set_attribute(owner: Any, name: str, value: Any) -> None:
    """``setattr``, but a module's through the base class's setter: the judge writes modules that
    are read-only to judged code (``runner.testing.frozen_modules``) without being trusted for it."""
    if isinstance(owner, types.ModuleType):
        types.ModuleType.__setattr__(owner, name, value)
    else:
        setattr(owner, name, value)


def is_sealed_function(obj: object) -> bool:
    return type(obj) is types.FunctionType and obj.__globals__ is SEALED_GLOBALS


def make_immutable(cls: type) -> None:
    """Refuse attribute assignment on ``cls`` from now on (like a built-in type)."""
    import ctypes

    global _FLAGS_OFFSET
    if _FLAGS_OFFSET is None:
        _FLAGS_OFFSET = _tp_flags_offset()
    word = ctypes.c_ulong.from_address(id(cls) + _FLAGS_OFFSET)
    if word.value != cls.__flags__:
        raise SealError("could not find tp_flags")
    if not word.value & _IMMUTABLE_TYPE:  # a class made immutable ahead (in the zygote) is not written again
        word.value = word.value | _IMMUTABLE_TYPE


_FLAGS_OFFSET: int | None = None


def warm_up() -> None:
    """Load ctypes and find ``tp_flags`` in the zygote, before any job (and its guard) exists."""
    global _FLAGS_OFFSET
    _FLAGS_OFFSET = _tp_flags_offset()


def tp_flags_offset() -> int:
    """Where ``tp_flags`` sits in a type object (found once per process)."""
    global _FLAGS_OFFSET
    if _FLAGS_OFFSET is None:
        _FLAGS_OFFSET = _tp_flags_offset()
    return _FLAGS_OFFSET


def _tp_flags_offset() -> int:
    """Where ``tp_flags`` sits in a type object: found by matching ``__flags__``, not assumed."""
    import ctypes

    class Probe:
        pass

    size = ctypes.sizeof(ctypes.c_ulong)
    for offset in range(0, 64 * size, size):
        if ctypes.c_ulong.from_address(id(Probe) + offset).value == Probe.__flags__:
            return offset
    raise SealError("could not find tp_flags")


# Classes whose instances must keep their class: the observers (``ops``) add theirs before the
# guard is sealed, which refuses ``__class__`` assignments to them.
SEALED_TYPES: set[type] = set()

# The names the templates below use; seal() binds each to a constant. Never read at run time.
TYPE_NAME: Any = None
STR_COPY: Any = None
HANDLER: Any = None
HANDLER_NAME: Any = None
MethodType: Any = None
object_getattribute: Any = None


def _mode_getattribute_template(self: Any, name: str) -> Any:
    # torch looks the handler up on the instance: an instance attribute must not shadow it.
    if name == HANDLER_NAME:
        return MethodType(HANDLER, self)
    return object_getattribute(self, name)


def mode_class(name: str, base: type, handler: Callable[..., Any]) -> type:
    """A sealed interception mode's class: a subclass of torch's ``base`` (``TorchFunctionMode`` or
    ``TorchDispatchMode``) whose handler is the sealed ``handler`` and stays it, the one home of
    what every observer's mode needs. Its ``__getattribute__`` is sealed (an instance attribute
    cannot shadow the handler, and the handler is bound to an inert token, not to the mode), the
    class is immutable and its instances keep their class (:data:`SEALED_TYPES`). torch binds the
    handler to the mode (it refuses anything else), so a handler template's first statement is
    ``del self``: its frame, which judged code running inside it can walk to, then holds nothing
    that leads to the mode. The caller pushes and pops the mode with torch's C functions."""
    attribute = "__torch_dispatch__" if "__torch_dispatch__" in vars(base) else "__torch_function__"
    cls = type(name, (base,), {attribute: handler})
    cls.__getattribute__ = seal(  # type: ignore[method-assign]
        _mode_getattribute_template,
        HANDLER_NAME=attribute,
        HANDLER=handler,
        MethodType=types.MethodType,
        object_getattribute=object.__getattribute__,
    )
    return sealed_class(cls)


def sealed_class(cls: type, **methods: Any) -> type:
    """``cls`` with ``methods`` (sealed functions, or properties over them) set on it, then
    immutable and in :data:`SEALED_TYPES` (its instances keep their class): the one way a class of
    the judge's is closed — a sealed mode's, an observer's context manager or record, the
    read-only module class."""
    for name, method in methods.items():
        setattr(cls, name, method)
    make_immutable(cls)
    SEALED_TYPES.add(cls)
    return cls


def _type_name_template(obj: object) -> str:
    return STR_COPY(TYPE_NAME(type(obj)))


def type_name_function() -> Callable[[object], str]:
    """A sealed ``type(obj).__name__`` as an exact ``str`` (no metaclass or str subclass code runs)."""
    return seal(_type_name_template, TYPE_NAME=type.__dict__["__name__"].__get__, STR_COPY=str.__str__)


def _restore_shown_template(kept: Any, shown: Any, marker: str) -> None:
    # ``shown`` is a list the judge made and appended to exactly what it appended to ``kept``:
    # compared by identity, so no object put in it runs code here.
    same = len(shown) == len(kept)
    i = 0
    while same and i < len(kept):
        same = shown[i] is kept[i]
        i = i + 1
    if not same:
        shown.clear()
        shown.extend(kept)
        shown.append(marker)


MODE: Any = None
POP: Any = None
POP_ARGS: Any = None
PUSH: Any = None


def _take_off_template() -> bool:
    """``MODE`` taken off the top of its torch stack: True when it was there; a mode of someone
    else's found in its place is put back (False), as is nothing on an empty stack."""
    top = None
    try:  # noqa: SIM105 (sealed: no module globals such as contextlib)
        top = POP(*POP_ARGS)
    except RuntimeError:
        pass
    if top is MODE:
        return True
    if top is not None:
        PUSH(top)
    return False


def mode_taker(mode: Any) -> Callable[[], bool]:
    """A sealed ``take_off()`` for an observer whose block pushed ``mode`` (a :func:`mode_class`
    instance) on its torch stack, the function or the dispatch one as its class says: at the
    block's end it takes the mode off with torch's C functions, and says whether it was on top (a
    block whose mode judged code took off or covered is marked by its caller)."""
    import torch
    from torch.utils._python_dispatch import TorchDispatchMode

    pop: Callable[..., Any]
    if isinstance(mode, TorchDispatchMode):  # its stack's pop takes a mode key: None, the top
        pop, push = torch._C._pop_torch_dispatch_stack, torch._C._push_on_torch_dispatch_stack
        pop_args: tuple[None, ...] = (None,)
    else:
        pop, push = torch._C._pop_torch_function_stack, torch._C._push_on_torch_function_stack
        pop_args = ()
    return seal(_take_off_template, MODE=mode, POP=pop, POP_ARGS=pop_args, PUSH=push)


def shown_list_restorer() -> Callable[[list[Any], list[Any], str], None]:
    """A sealed ``restore(kept, shown, marker)`` for an observer that hands ``tests.py`` a live list
    (``shown``) while it keeps its own copy (``kept``, in sealed constants): when the block ends,
    a ``shown`` that was changed meanwhile (judged code that reached ``tests.py``'s frame) is put
    back to ``kept`` with ``marker`` appended, so it never equals a reference's list."""
    return seal(_restore_shown_template)


prepare(_type_name_template, _mode_getattribute_template, _restore_shown_template, _take_off_template)
