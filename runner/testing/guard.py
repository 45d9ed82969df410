"""The in-sandbox guard: authenticated events and an audit hook, set up before the learner's code.

Observations of *how* code ran (hooks registered and removed, operations called) are
judged on the host from **events** sent the moment they happen, so nothing the learner
does later can rewrite them. Each event carries a per-job sequence number and a MAC under a key
the host generated for this job (``runner.testing.event_emitter``; sent to the job's spare before
the job, over the spare's own link: :class:`PendingGuard`). Once the guard is in force (before the
learner's import) the key lives only in the constants of sealed code (``runner.testing.sealed``),
never in a variable, a closure or a module.

The **audit hook** (``runner.testing.audit_hook``) refuses the introspection that could reach
those constants or change sealed code; the **observers** (``runner.testing.hook_events``,
``runner.testing.ops``) send what they see as events. This module seals them together and puts
them in force.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

# Imported at warm-up: a job's uid cannot read runner/.
from runner.testing import (
    audit_hook,
    class_versions,
    event_emitter,
    frozen_classes,
    hook_events,
    lazy_tensors,
    method_slots,
    op_bypasses,
    op_names,
    ops,
    sealed,
    torch_state,
)

Emit = Callable[..., None]


@dataclass(frozen=True)
class Guard:
    """The sealed entry points the harness and the observers call. Each one's behaviour is fixed:
    called from the learner's code they only add events whose order the host checks. The emitter
    itself is not here: only sealed code holds it, as a constant."""

    begin_case: Callable[[str], None]
    end_case: Callable[[str], None]
    hooks: hook_events.HookObserver
    ops: ops.OpsObserver


_active: Guard | None = None


def active() -> Guard | None:
    """The guard of this job, or None outside the sandbox (tests run in-process then)."""
    return _active


# --- templates (sealed at start-up: every global name below becomes a constant) ----------
# The names the templates use; seal() binds each to a constant. Never read at run time.
EMIT: Any = None
CASE_END_CHECKS: Any = None
CASE_BEGIN_STEPS: Any = None


def _begin_case_template(name: str) -> None:
    EMIT("case_start", name)
    # What solution.py's import left, or the learner's code the harness ran after the previous case
    # ended (an exception's `__str__` as it is described).
    CASE_BEGIN_STEPS[1]("import", name)
    CASE_BEGIN_STEPS[0]()


def _end_case_template(name: str) -> None:
    try:
        CASE_END_CHECKS[3]("case", name)  # what the case's code left (the judge's modes keep their place)
        CASE_END_CHECKS[1]()
        CASE_END_CHECKS[2]()
    finally:
        CASE_END_CHECKS[0]()
        EMIT("case_end", name)


def warm_up() -> None:
    """What the zygote prepares once for every job: ctypes and ``tp_flags``, the API names."""
    sealed.warm_up()
    op_names.warm_up()


def watch_classes() -> None:
    """The zygote, once, after its warm-up exercise (the classes loaded by then are those made
    read-only or watched): ``frozen_classes`` and ``class_versions``."""
    frozen_classes.prepare()


@dataclass(frozen=True)
class Sealed:
    """A job's guard, sealed but not yet in force (:func:`activate`). ``hook_patches`` (the hook
    observers' wrappers) may be put in place before, turned off until ``turn_on``
    (:meth:`KeySlotGuard.place_hook_wrappers`), as may ``lazy_patches`` (lazy tensors' sealed
    ``materialize``, which only ever makes torch's own change); ``ops_patches`` go in place when the
    guard comes into force."""

    guard: Guard
    audit: Callable[[str, tuple[Any, ...]], None]
    hook_patches: tuple[sealed.Patch, ...]
    lazy_patches: tuple[sealed.Patch, ...]
    ops_patches: tuple[sealed.Patch, ...]
    turn_on: Callable[[], None]
    state_baseline: Callable[[], None]  # torch's process-wide state as every case starts it (torch_state)


def seal(key: bytes, fd: int) -> Sealed:
    """Seal the emitter with ``key``, the observers over it, and the audit hook; change nothing
    else (no method replaced, no hook installed): this may run before the job has come.

    The emitter is passed to the observers' builders here and kept by nothing but sealed
    constants afterwards.
    """
    return _seal(bytes(key), fd)


def _seal(key: bytes | bytearray, fd: int) -> Sealed:
    """:func:`seal` around ``key`` as it is: a ``bytearray`` is a slot whose bytes the emitter
    reads at every event (:class:`KeySlotGuard`)."""
    type_name = sealed.type_name_function()
    emit = event_emitter.seal_emitter(key, fd, type_name)
    hooks, hook_patches, turn_on = hook_events.prepare(emit)
    state = torch_state.prepare(emit, type_name)
    operations, ops_patches = ops.prepare(emit, (state.check_begin, state.check_end))
    state.judge_modes[:] = operations.modes
    permit: list[Any] = [None, None]  # held by the sealed materialize and the audit hook only
    lazy_patches = lazy_tensors.prepare(permit)
    audit = audit_hook.seal_audit_hook(emit, type_name, permit)
    guard = Guard(
        begin_case=sealed.seal(
            _begin_case_template, EMIT=emit, CASE_BEGIN_STEPS=(operations.begin_case, state.restore)
        ),
        end_case=sealed.seal(
            _end_case_template,
            EMIT=emit,
            CASE_END_CHECKS=(
                hooks.end_case_check,
                operations.end_case,
                class_versions.seal_report(emit),
                state.restore,
            ),
        ),
        hooks=hooks,
        ops=operations,
    )
    return Sealed(
        guard, audit, tuple(hook_patches), tuple(lazy_patches), tuple(ops_patches), turn_on, state.baseline
    )


def protected_classes() -> tuple[type, ...]:
    """torch's classes whose methods the checks call on tensors (``clone``, ``detach``, ``sum``,
    ``max``, …): once the guard is in force (after the observers' wrappers are put in place, before
    the learner's import) they are immutable like a built-in type, so ``type(x).clone = …``,
    ``setattr`` and a route through ``sys.modules`` all raise ``TypeError`` and a check reading a
    tensor reads what torch computes. ``nn.Module`` is not among them: a problem's own tests wrap its
    methods per case (``observe_hooks``), and the hook observers read its tables exactly. Nor
    ``nn.Parameter``: ``UninitializedParameter.materialize`` (lazy modules) assigns an instance's
    ``__class__`` to it, which CPython refuses for an immutable type; it is watched instead
    (``runner.testing.class_versions``: a change is reported at the case's end). A lazy module's
    ``UninitializedBuffer`` still becomes a ``torch.Tensor``: the guard's own ``materialize`` lifts
    the flag for exactly that assignment (``runner.testing.lazy_tensors``)."""
    import torch

    return (torch.Tensor, torch.storage.UntypedStorage, torch.storage.TypedStorage)


def _tensor_classes_read_only() -> None:
    for cls in protected_classes():
        sealed.make_immutable(cls)


def _targets() -> list[tuple[Any, str, Any]]:
    return hook_events.targets() + op_bypasses.bypass_targets() + lazy_tensors.targets()


def activate(ready: Sealed, classes_ahead: bool = False) -> Guard | None:
    """Put a sealed guard in force: the observers' wrappers replace what they wrap (where they are
    not in place already) and are turned on, and the audit hook is installed. None (and nothing
    changed) when what the wrappers wrap has changed since they were sealed: seal again then.
    ``classes_ahead``: torch's classes but ``nn.Module`` were made read-only in the zygote
    (:meth:`KeySlotGuard._classes_read_only_ahead`)."""
    global _active

    if not sealed.apply_patches((*ready.hook_patches, *ready.ops_patches, *ready.lazy_patches), _targets()):
        return None
    ready.turn_on()
    if not classes_ahead:
        _tensor_classes_read_only()
    frozen_classes.activate(classes_ahead)  # nn.Module, Optimizer, Function and torch's subclasses of them
    class_versions.baseline()  # torch's other classes: a change from now on is reported
    ready.state_baseline()  # before the learner's import: what it leaves is reported at the first case
    sys.addaudithook(ready.audit)
    _active = ready.guard
    return ready.guard


def install(key: bytes, fd: int) -> Guard:
    """Seal the guard and put it in force at once.

    Call once, before the learner's import (and after the problem's tests are loaded: they are
    the instructor's code, and the observers wrap what they left).
    """
    guard = activate(seal(key, fd))
    if guard is None:  # nothing runs between the two
        raise sealed.SealError("the guard's targets changed while it was sealed")
    return guard


class KeySlotGuard:
    """A guard sealed once, in the zygote, around a key *slot*: a ``bytearray`` of zeroes that
    only the sealed emitter holds besides this object.

    Sealing a job's guard is most of the CPU a spare spends on its guard (~2.5 ms and ~530
    copy-on-write faults in a fork of a warm zygote, measured in slow minutes; activating
    it ~0.2 ms and ~20), and it is the same work for every job but the key. So the zygote
    seals once before it forks, and puts the hook observers' wrappers in place, turned off; every
    spare, which has its own copy of this object, of the slot and of the wrappers' switch, writes
    its job's key into the slot and puts the guard in force (:meth:`put_in_force`, from
    :meth:`PendingGuard.install`), which turns its wrappers on. It lets go of the slot and the
    sealed guard first, so from then on, as with :func:`seal`, the key lives only in sealed
    constants; a spare's slot is its own page, so no other spare or the zygote ever sees it.
    """

    def __init__(self, key_bytes: int, fd: int) -> None:
        self._slot: bytearray | None = bytearray(key_bytes)
        self._sealed: Sealed | None = _seal(self._slot, fd)
        self._place_hook_wrappers(self._sealed)
        self._classes_read_only_ahead()

    @staticmethod
    def _place_hook_wrappers(ready: Sealed) -> None:
        """The hook observers' wrappers in place now, turned off (each calls what it wraps, no
        more) until a spare's guard comes into force and turns its copy on; then the version tags
        of the classes they reset (``nn.Module``'s subclasses) taken again, here, once
        (``class_versions.baseline``). Writing ``nn.Module`` in each job instead reset ~300 watched
        classes' tags there, and taking them again wrote each type object: ~1.5 ms and ~200
        copy-on-write faults a job. Lazy tensors' sealed ``materialize`` goes in with them, for the
        same reason (it writes ``UninitializedTensorMixin``), and needs no switch: it only ever
        makes torch's own change."""
        import torch.nn as nn

        early = (*ready.hook_patches, *ready.lazy_patches)
        if not sealed.apply_patches(early, hook_events.targets() + lazy_tensors.targets()):
            raise sealed.SealError("the hook observers' targets changed while they were sealed")
        # the problem's tests then replace them per case in slots, not in the class (method_slots)
        method_slots.place(nn.Module, [p.name for p in ready.hook_patches if p.owner is nn.Module])
        class_versions.baseline()

    @staticmethod
    def _classes_read_only_ahead() -> None:
        """torch's tensor classes (``protected_classes``) and its optimizer and autograd-function
        classes (``frozen_classes.activate_ahead``) immutable now, once, rather than in each job's
        :func:`activate`: setting the flag writes each type object, a copy-on-write fault of a page
        the job shares with the zygote (~240 a job, ~0.8 ms of its CPU). Nothing the spare runs
        before the guard writes them (its warm-up, the problem's ``tests.py``, which changes torch's
        classes through ``set_class_attribute``); ``nn.Module`` is left to the guard, since
        ``tests.py`` may still replace one of its hook methods as it loads."""
        _tensor_classes_read_only()
        frozen_classes.activate_ahead()

    def put_in_force(self, key: bytes) -> Guard | None:
        """This guard in force with ``key``; once only. None, with the slot wiped, when its
        targets changed since it was sealed (``tests.py`` replaced one): seal afresh then."""
        slot, ready = self._slot, self._sealed
        self._slot = self._sealed = None
        if slot is None or ready is None or len(key) != len(slot):
            return None
        slot[:] = key
        guard = activate(ready, classes_ahead=True)
        if guard is None:
            slot[:] = bytes(len(slot))
        return guard


class PendingGuard:
    """A job's guard before it is in force, in the spare that will run the job.

    The spare has its key from the host before the job exists. In the sandbox the guard was
    sealed by the zygote around a key slot (``slotted``): :meth:`install` writes the key into this
    process's copy and puts it in force, after the problem's tests are loaded. Without one (a job
    run outside the zygote), or where ``tests.py`` changed what the observers wrap, it seals then,
    as :func:`install` does.

    The key is held here only until :meth:`install`, which runs before the learner's code: from
    then on it lives only in sealed constants, as always.
    """

    def __init__(self, key: bytes, fd: int, slotted: KeySlotGuard | None = None) -> None:
        self._key = bytes(key)
        self._fd = fd
        self._slotted = slotted  # the zygote's guard, sealed around a key slot (this process's copy)

    def forget(self) -> None:
        """No guard for this job (the host asked for none): let go of the key all the same."""
        self._key, self._slotted = b"", None

    def install(self) -> Guard | None:
        """This job's guard, in force; None where the host asked for none (no key). Raises
        ``sealed.UnsupportedInterpreter`` on an interpreter the guard was not built for."""
        key, slotted = self._key, self._slotted
        self.forget()
        if not key:
            return None
        sealed.require_supported()
        guard = slotted.put_in_force(key) if slotted is not None else None
        return guard if guard is not None else install(key, self._fd)


sealed.prepare(_begin_case_template, _end_case_template)
