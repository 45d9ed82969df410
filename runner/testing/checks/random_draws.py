"""Random draws from torch's global generator (in the sandbox and out of it).

"Draw with a generator of your own" cannot be checked on the draws or on the global state alone: a
solution that saves the global state (``torch.get_rng_state``), seeds it, draws, keeps the state it
reached as its own and puts the caller's back (``torch.set_rng_state``) draws the same numbers as one
with its own ``torch.Generator`` and leaves the global state as it found it. What tells them apart is
which generator each random operator was given: every such aten operator takes a ``generator``
argument, and one given none (or ``torch.default_generator`` itself) draws from the global one.

The watch is sealed like the operation observers (``runner.testing.sealed``), since the learner's
code runs inside it: the handler and the block's entry and exit are sealed functions built once when
the zygote imports this module, the mode's class and the block's are immutable, and the draws are
kept in sealed constants. ``tests.py`` gets a plain list kept equal to them; when the block ends,
a list changed meanwhile, or a watch taken off torch's stack, reads as the draws plus a marker, which
never equals a reference's list.
"""

from __future__ import annotations

from typing import Any

from runner.testing import sealed

# Random operators without a generator argument: they always draw from the global generator (as
# does every overload torch tags ``nondeterministic_seeded`` that takes no generator).
ALWAYS_GLOBAL = frozenset({"native_dropout", "_fused_dropout"})
CHANGED = "(the judge's record of the draws was changed)"
UNWATCHED = "(the judge's watch of the draws was taken off torch's stack)"

# Names the templates use; seal() binds each to a constant. Never read at run time.
WATCHES: Any = None
WATCH_LISTS: Any = None
POSITIONS: Any = None
POSITION: Any = None
DEFAULT: Any = None
GENERATOR: Any = None
CDATA: Any = None
MODE: Any = None
WATCH_CLASS: Any = None
RESTORE: Any = None
object_getattribute: Any = None
push_dispatch: Any = None
TAKE_OFF: Any = None


def _position_template(func: Any) -> tuple[str, Any]:
    """An operator's name and where its generator argument is, from its schema, once per overload:
    -1 for a random operator that takes none (``aten.rand.default``, ``aten.randperm.default``:
    ``torch.rand(3)`` and ``torch.randperm(n)`` draw from the global generator), None for an
    operator that draws nothing."""
    known = POSITIONS.get(func)
    if known is not None:
        return known
    name = ""
    found = None
    try:
        schema = object_getattribute(func, "_schema")
        name = str.partition(schema.name, "::")[2]
        i = 0
        for argument in schema.arguments:
            if argument.name == "generator":
                found = i
            i = i + 1
    except Exception:
        return ("", None)
    if found is None:
        try:
            if name in ALWAYS_GLOBAL or object_getattribute(func, "_nondeterministic_seeded") is True:
                found = -1
        except Exception:  # no such attribute: the names above only
            pass
    POSITIONS[func] = (name, found)
    return (name, found)


def _handler_template(self: Any, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
    del self  # the mode: no frame of the judge's holds it while other code runs
    if WATCHES:
        name, i = POSITION(func)
        drawn = i == -1
        if i is not None and i >= 0:
            generator = None
            if kwargs is not None and "generator" in kwargs:
                generator = kwargs["generator"]
            elif i < len(args):
                generator = args[i]
            drawn = generator is None or (type(generator) is GENERATOR and CDATA(generator) == DEFAULT)
        if drawn:
            k = 0
            while k < len(WATCHES):
                WATCHES[k][0].append(name)
                WATCHES[k][1].append(name)
                k = k + 1
    if kwargs is None:
        return func(*args)
    return func(*args, **kwargs)


def _watch_template() -> Any:
    """Record, while the block runs, the name of every aten operator that drew from torch's global
    CPU generator; the list is what the case reports (``[]`` for code that only uses its own)."""
    watch = WATCH_CLASS()
    WATCH_LISTS[watch] = ([], [], [0])  # kept, shown, entered
    return watch


def _enter_template(self: Any) -> Any:
    if WATCH_LISTS[self][2][0]:  # entered twice: nothing can be said of it
        WATCH_LISTS[self][0].append(UNWATCHED)
        return WATCH_LISTS[self][1]
    WATCH_LISTS[self][2][0] = 1
    if not WATCHES:
        push_dispatch(MODE)
    WATCHES.append(WATCH_LISTS[self])
    return WATCH_LISTS[self][1]


def _exit_template(self: Any, kind: Any, value: Any, traceback: Any) -> None:
    if not WATCHES or WATCHES[-1] is not WATCH_LISTS[self]:
        WATCH_LISTS[self][0].append(UNWATCHED)  # ended out of order
        k = 0
        while k < len(WATCHES):
            WATCHES[k][0].append(UNWATCHED)
            k = k + 1
    else:
        WATCHES.pop()
    if not WATCHES and not TAKE_OFF():
        WATCH_LISTS[self][0].append(UNWATCHED)
    RESTORE(WATCH_LISTS[self][0], WATCH_LISTS[self][1], CHANGED)
    del WATCH_LISTS[self]  # what it kept (the watched tensors too) goes with the block


def _watching_template() -> bool:
    return bool(WATCHES)


sealed.prepare(
    _position_template,
    _handler_template,
    _watch_template,
    _enter_template,
    _exit_template,
    _watching_template,
)


class _Watch:
    """The context manager :func:`global_rng_draws` returns (sealed ``__enter__``/``__exit__``)."""

    __slots__ = ()


def _build() -> tuple[Any, Any]:
    """The sealed ``global_rng_draws``, built once, at import in the zygote: its state lives only in
    its constants."""
    import torch
    from torch.utils._python_dispatch import TorchDispatchMode

    common: dict[str, Any] = {"WATCHES": [], "WATCH_LISTS": {}}
    position = sealed.seal(_position_template, POSITIONS={}, object_getattribute=object.__getattribute__)
    handler = sealed.seal(
        _handler_template,
        POSITION=position,
        # The dispatcher hands a new wrapper of the same generator: compare what it wraps.
        DEFAULT=torch.default_generator._cdata,  # type: ignore[attr-defined]
        GENERATOR=torch.Generator,
        CDATA=torch._C.Generator.__dict__["_cdata"].__get__,
        **common,
    )
    mode = sealed.mode_class("JudgeGlobalDrawsWatch", TorchDispatchMode, handler)()
    push = torch._C._push_on_torch_dispatch_stack
    take_off = sealed.mode_taker(mode)
    sealed.sealed_class(
        _Watch,
        __enter__=sealed.seal(_enter_template, MODE=mode, push_dispatch=push, **common),
        __exit__=sealed.seal(
            _exit_template, RESTORE=sealed.shown_list_restorer(), TAKE_OFF=take_off, **common
        ),
    )
    watch = sealed.seal(_watch_template, WATCH_CLASS=_Watch, **common)
    return watch, sealed.seal(_watching_template, **common)


# Built once, when the zygote imports this module (the module is read-only from then on):
# ``global_rng_draws()`` is a sealed function, as ``check_call`` is.
global_rng_draws, WATCHING = _build()
