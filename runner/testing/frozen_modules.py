"""The modules the judge relies on, read-only to judged code: no attribute of them can be rebound.

Every check that is ordinary Python (``check_gradients``, ``check_optimizer``, ``check_family``, the
problems' own counters, PyTorch's ``gradcheck`` and ``functional_call`` under them) looks names up
in module namespaces when it runs: ``torch.autograd.grad``, ``functools.partial``, ``math.isclose``,
``runner.testing.check_gradients``. A learner who rebinds one of them — by any spelling: an alias
(``m = torch.autograd; m.grad = f``), ``setattr`` with a written name, a module kept in a list or a
default argument — would change what the check does. Spellings are the source policy's business;
this closes the class where Python cannot undo it, by type.

:func:`freeze` (the zygote, once, after its warm-up: no job pays for it) gives every plain module then
loaded — torch's, the standard library's, the judge's — the class :class:`ReadOnlyModule`, whose
``__setattr__`` and ``__delattr__`` are sealed functions (``runner.testing.sealed``): they refuse,
with ``TypeError``, to rebind or delete any name, unless

* the caller is the problem's ``tests.py`` (a frame whose globals are its module's, recorded by
  :func:`trust_tests` before it runs: a problem's counters wrap torch's functions per case), told
  apart by the identity of the frame's globals, which judged code cannot forge; or
* the name is new and the value is the submodule ``sys.modules`` holds under that name (the
  import system binds a submodule on its package when it is first imported).

The judge's own code (the guard's patches, ``shifted_seed``) writes through the base class's
setter (``sealed.set_attribute``, like ``object.__setattr__``) and is trusted for nothing here. The
class is immutable (``sealed.make_immutable``) and registered in ``sealed.SEALED_TYPES``: a
module's ``__class__`` assignment meets the sealed ``__setattr__`` (or, through
``object.__setattr__``, the guard's audit hook), and ``ReadOnlyModule.__setattr__ = …`` raises
``TypeError`` like a built-in type's. What stays open at run time (a module's namespace written as
a dict: ``vars(m)``, ``m.__dict__``; ``object.__setattr__``, ``importlib.reload``, ``sys.modules``,
the judge's own ``set_attribute``) is what the source policy refuses by name: none of those
spellings, nor ``runner``, is allowed to judged code (docs/security.md says which).

Left writable: ``sys`` (the harness redirects ``sys.stdout`` per case), ``warnings``
(``catch_warnings`` rebinds its functions, and torch uses it), ``__main__``, and modules whose class
is not ``ModuleType`` (torch's property-backed ``torch.backends.*`` and config modules: assigning
them is their public API).
"""

from __future__ import annotations

import sys
import types
from typing import Any

from runner.testing import sealed

# Plain modules left writable (see the module's docstring).
WRITABLE = frozenset({"sys", "warnings", "__main__"})
REFUSAL = "the modules the judge relies on are read-only while your code runs"

# The names the templates use; seal() binds each to a constant. Never read at run time.
SET: Any = None
DELETE: Any = None
NAMESPACE: Any = None
GET_FRAME: Any = None
MODULES: Any = None
TESTS: Any = None
STR_COPY: Any = None
STR_OF: Any = None
TRUSTED_CALLER: Any = None


def _trusted_caller_template() -> bool:
    """Whether the code that assigned (two frames up: past the sealed ``__setattr__``) is the
    problem's ``tests.py``."""
    return GET_FRAME(2).f_globals is TESTS[0]


def _set_template(module: Any, name: Any, value: Any) -> None:
    name = STR_COPY(name)  # an exact str: a subclass's __eq__/__add__ takes no part below
    namespace = NAMESPACE(module)
    if name not in namespace:
        # The import system binding a submodule it has just loaded on its package.
        full = STR_OF(namespace.get("__name__")) + "." + name
        if MODULES.get(full) is value and type(value) is not str:
            SET(module, name, value)
            return
    if TRUSTED_CALLER():
        SET(module, name, value)
        return
    raise TypeError(
        "cannot set '" + name + "' on module '" + STR_OF(namespace.get("__name__")) + "': " + REFUSAL + "."
    )


def _delete_template(module: Any, name: Any) -> None:
    name = STR_COPY(name)
    if TRUSTED_CALLER():
        DELETE(module, name)
        return
    raise TypeError(
        "cannot delete '"
        + name
        + "' from module '"
        + STR_OF(NAMESPACE(module).get("__name__"))
        + "': "
        + REFUSAL
        + "."
    )


def _trust_tests_template(namespace: Any) -> bool:
    """Record the problem's ``tests.py`` namespace as the judge's, once per process (the harness does
    it before the tests are executed, so before any learner code exists)."""
    if TESTS[0] is not None or type(namespace) is not dict:
        return False
    TESTS[0] = namespace
    return True


sealed.prepare(_trusted_caller_template, _set_template, _delete_template, _trust_tests_template)

_TESTS_SLOT: list[Any] = [None]


def _make_class() -> tuple[type, Any]:
    module_attributes: Any = types.ModuleType.__dict__
    namespace_of = module_attributes["__dict__"].__get__  # the C member: no Python code runs
    trusted = sealed.seal(_trusted_caller_template, GET_FRAME=sys._getframe, TESTS=_TESTS_SLOT)
    common = {"STR_COPY": str.__str__, "STR_OF": str, "NAMESPACE": namespace_of, "TRUSTED_CALLER": trusted}
    setter = sealed.seal(_set_template, SET=types.ModuleType.__setattr__, MODULES=sys.modules, **common)
    deleter = sealed.seal(_delete_template, DELETE=types.ModuleType.__delattr__, **common)
    cls = type(
        "ReadOnlyModule",
        (types.ModuleType,),
        {"__slots__": (), "__setattr__": setter, "__delattr__": deleter, "__module__": "builtins"},
    )
    trust = sealed.seal(_trust_tests_template, TESTS=_TESTS_SLOT)
    return cls, trust


_state: dict[str, Any] = {}


def freeze() -> int:
    """Make every plain module loaded now read-only to judged code (see the module's docstring);
    how many were. Once per process: the zygote's, after its warm-up, before it forks."""
    if "class" in _state:
        return 0
    sealed.require_supported()
    cls, trust = _make_class()
    sealed.sealed_class(cls)  # the guard, sealed after this, refuses `__class__` assignments to it
    _state["class"], _state["trust"] = cls, trust
    frozen = 0
    for name, module in list(sys.modules.items()):
        if type(module) is types.ModuleType and name not in WRITABLE:
            module.__class__ = cls
            frozen += 1
    return frozen


def trust_tests(module: types.ModuleType) -> None:
    """The problem's ``tests.py`` module (before it runs): its code may rebind what it wraps (a
    counter around a torch function), and it is read-only to everyone else from then on. Nothing
    where :func:`freeze` has not run (tests of the harness in-process)."""
    trust = _state.get("trust")
    if trust is not None and trust(vars(module)):
        module.__class__ = _state["class"]


def tests_slot() -> list[Any]:
    """The one-element slot that holds ``tests.py``'s namespace once :func:`trust_tests` recorded it:
    sealed code (``runner.testing.frozen_classes``) captures it as a constant."""
    return _TESTS_SLOT


def is_read_only(module: object) -> bool:
    return "class" in _state and type(module) is _state["class"]
