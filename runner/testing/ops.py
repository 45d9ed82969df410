"""Which operations the learner's code calls: ``forbid_ops``, ``require_ops``, ``assert_vectorised``.

Calls are intercepted with PyTorch's own mechanisms, never by reading source text:

* a ``TorchFunctionMode`` sees public API names (``torch.nn.functional.layer_norm``,
  ``torch.cdist``, ``torch.Tensor.scatter_add_``), resolved to names once at start-up;
* a ``TorchDispatchMode`` sees aten operators (``aten.native_layer_norm``,
  ``aten._cdist_forward``, ``aten.scatter_add``), which every route to an operation reaches —
  ``torch.ops.aten``, ``torch._C._nn``, a method or another alias alike.

Both handlers are sealed (``runner.testing.sealed``), their classes immutable, and what they see goes
to the host as events (``runner.testing.guard``); the host decides (``runner.judging.observations``). The
wrappers of the torch entry points that pop dispatch modes or exclude the Python dispatch key
(``runner.testing.op_bypasses``) send a ``tampered`` event when called while a check is active, and the end of
a block checks that both modes are still the top of their stacks. A check the learner's code
switches off by other means sends fewer events than the reference did, which the host treats
as a modified judge.

Events: ``check_begin``, then ``check <kind> <op or sentence> ...`` when a block starts,
``op_called <op> <line>`` (first call of a forbidden op), ``op_seen <op>`` (first call of a
required one), ``op_count <size> <count>`` (``assert_vectorised``), ``check_end`` when a block
ends; at a case's end, ``op_count_after <ops> <values>`` when a count ran in it (what ran after).
A forbid or allow rule whose block ended inside a case holds until the case ends (``TAIL``).
The API names the function mode reads are resolved in ``runner.testing.op_names``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from runner.testing import op_bypasses, op_count, op_names, peak_memory, sealed
from runner.testing.checks import flags as flag_writes
from runner.testing.checks import random_draws, writes

SOLUTION_PATH = "/tmp/solution.py"  # where the harness writes the learner's module (runner.sandbox.zygote)
DEFAULT_SIZES = (8, 64)


@dataclass(frozen=True)
class OpsObserver:
    # forbidden, required (op -> sentence), an allow rule's sentence ("" for none) and its extras
    # and the rule id of a problem-wide rule ("" for a case's own)
    enter: Callable[[Mapping[str, str], Mapping[str, str], str, tuple[str, ...], str], None]
    leave: Callable[[], None]
    count: Callable[[Callable[[Any], Any], Any, str], Any]
    declare_vectorised: Callable[[str, str], None]
    begin_case: Callable[[], None]
    end_case: Callable[[], None]
    # whether the function mode goes on in every case (the problem's tests check operations) or
    # only from a check's start to its case's end (they check none); set once, before any case
    watch_every_case: Callable[[bool], None]
    modes: tuple[Any, Any]  # the judge's function and dispatch modes (runner.testing.torch_state)


# Names the templates use; seal() binds each to a constant. Never read at run time.
EMIT: Any = None
NAMES: Any = None
STATE: Any = None
FUNCTION_MODE: Any = None
DISPATCH_MODE: Any = None
ORIGINAL: Any = None
WHAT: Any = None
WHERE: Any = None
SOLUTION: Any = None
SEALED_GLOBALS: Any = None
NOTE: Any = None
NOTE_ATEN: Any = None
object_getattribute: Any = None
push_function: Any = None
push_dispatch: Any = None
pop_function: Any = None
pop_dispatch: Any = None
int_repr: Any = None


def _where_template() -> str:
    """``line N`` of the innermost solution.py frame calling the op (frames read, never handed out).

    The walk starts from this frame (through a traceback: ``sys._getframe`` is refused on sealed
    frames) and skips every sealed frame without reading its code."""
    try:
        raise LookupError
    except LookupError as exc:
        frame = exc.__traceback__.tb_frame  # type: ignore[union-attr]
    while frame is not None:
        if frame.f_globals is not SEALED_GLOBALS and frame.f_code.co_filename == SOLUTION:
            return "line " + int_repr(frame.f_lineno)
        frame = frame.f_back
    return ""


def _note_template(name: str) -> None:
    for block in STATE:
        if name in block[0] and name not in block[2]:
            block[2].add(name)
            EMIT("op_called", name, WHERE())
        if name in block[1] and name not in block[3]:
            block[3].add(name)
            EMIT("op_seen", name)
    for tail in TAIL:  # op rules whose block ended in this case: they hold until it ends
        if name in tail[0] and name not in tail[1]:
            tail[1].add(name)
            EMIT("op_called", name, WHERE())


def _note_aten_template(name: str) -> None:
    """An aten operator reached the dispatch level: forbid/require rules by its name and, for an
    in-place variant (``aten.exp_``), its functional op's; allow blocks record it once each."""
    NOTE(name)
    if name[-1] == "_" and name[-2] != "_":
        NOTE(name[:-1])
    if FLAGS[5]:
        for block in STATE:
            if block[4] and name not in block[5]:
                block[5].add(name)
                EMIT("op_used", block[4], name, WHERE())
    for tail in TAIL:  # an allow block that ended in this case still records under its ordinal
        if tail[2] and name not in tail[3]:
            tail[3].add(name)
            EMIT("op_used", tail[2], name, WHERE())


def _function_template(self: Any, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
    del self  # the mode: no frame of the judge's holds it while other code runs
    if not STATE and not TAIL:  # no check active (a case that checks nothing): only pass the call on
        if kwargs is None:
            return func(*args)
        return func(*args, **kwargs)
    name = NAMES.get(func)
    if name is not None:
        NOTE(name)
        if FLAGS[4] and name in CONVERSIONS:
            CONVERTED[0] = CONVERTED[0] + CONVERTED_BY(name, args)
    # torch takes this mode off its stack while its handler runs: say so to the dispatch check.
    FLAGS[0] = FLAGS[0] + 1
    try:
        if kwargs is None:
            return func(*args)
        return func(*args, **kwargs)
    finally:
        FLAGS[0] = FLAGS[0] - 1


def _function_mode_present_template() -> bool:
    i = 0
    n = len_function_stack()
    while i < n:
        if function_stack_at(i) is FUNCTION_MODE_BOX[0]:
            return True
        i = i + 1
    return False


def _dispatch_template(self: Any, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
    del self  # the mode: no frame of the judge's holds it while other code runs
    STATE_COUNT[0] = STATE_COUNT[0] + 1
    # FLAGS: [inside the function handler, function checks active, tampering already reported,
    # inside a case (the modes are on for the whole case)]
    if FLAGS[1] and not FLAGS[0] and not FLAGS[2] and not FUNCTION_MODE_PRESENT():
        FLAGS[2] = 1
        EMIT("tampered", "the judge's interception of operation names was taken off its stack")
    if STATE or TAIL:
        full = object_getattribute(func, "_name")
        if type(full) is str:
            NOTE_ATEN("aten." + full.partition("::")[2].partition(".")[0])
    if kwargs is None:
        return func(*args)
    return func(*args, **kwargs)


def _enter_template(forbidden: Any, required: Any, allow: str, allow_extra: Any, rule: str) -> None:
    ordinal = ""
    if allow:  # numbered per case, so the host pairs each block with the reference's
        FLAGS[6] = FLAGS[6] + 1
        ordinal = int_repr(FLAGS[6])
    block: tuple[dict[str, str], dict[str, str], set[str], set[str], str, set[str]] = (
        {},
        {},
        set(),
        set(),
        ordinal,
        set(),
    )
    EMIT("check_begin")
    if rule:  # a problem-wide rule: the host names this rule, not the case's, when it fails
        EMIT("check", "rule", rule)
    for op in forbidden:
        block[0][op] = forbidden[op]
        EMIT("check", "forbid", op, forbidden[op])
    for op in required:
        block[1][op] = required[op]
        EMIT("check", "require", op, required[op])
    if allow:
        EMIT("check", "allow", ordinal, allow, *allow_extra)
        FLAGS[5] = FLAGS[5] + 1
    STATE.append(block)
    FLAGS[1] = FLAGS[1] + 1
    if not FLAGS[3]:  # outside a case: the function mode is not on yet
        push_function(FUNCTION_MODE)
    else:  # on until the case ends, where the job does not put it on in every case
        FUNCTION_TO_CASE_END()
    push_dispatch(DISPATCH_MODE)
    CHECK_STEPS[0]()


def _leave_template() -> None:
    if not STATE:
        EMIT("tampered", "a check of operations ended twice")
        return
    CHECK_STEPS[1]()  # a mode the learner's code pushed in the check and left is reported and taken off
    block = STATE.pop()
    if block[4]:
        FLAGS[5] = FLAGS[5] - 1
    FLAGS[1] = FLAGS[1] - 1
    dispatch_mode = None
    function_mode = None
    try:
        dispatch_mode = pop_dispatch(None)
        function_mode = pop_function()
    except RuntimeError:
        pass
    if dispatch_mode is not DISPATCH_MODE or function_mode is not FUNCTION_MODE:
        EMIT("tampered", "the judge's interception of operations was removed")
    elif FLAGS[3]:  # the case's function mode stays on until the case ends
        push_function(FUNCTION_MODE)
        if block[0] or block[4]:
            # An op rule holds until the case ends, not only until its block does: code the
            # learner left to run later (a suspended generator's `finally`, run when the tests drop
            # an input it was tied to) would otherwise call the built-in out of sight and write the
            # result into the value the case returns. An allow block keeps recording what runs under
            # its ordinal: the reference's run records the same tail, which is what it allows. The
            # dispatch mode stays on for the rest of this case only (it sees aten names); the
            # function mode is on for every case anyway.
            TAIL.append((block[0], set(block[2]), block[4], block[5]))
            DISPATCH_TO_CASE_END()
    EMIT("check_end")


def _dispatch_to_case_end_template() -> None:
    """The dispatch mode on until the case ends (once a case; ``_end_case_template`` takes it off),
    at the bottom of torch's stack: a mode of the tests' own around the block
    (``with observe_peak_memory()``) pops the top when it ends, and must find itself there."""
    if not FLAGS[7]:
        FLAGS[7] = 1
        above = []
        while len_dispatch_stack() > 0:
            above.append(pop_dispatch(None))
        push_dispatch(DISPATCH_MODE)
        while above:
            push_dispatch(above.pop())


def _function_to_case_end_template() -> None:
    """The function mode on until the case ends (once a case), at the bottom of torch's stack, where
    the case did not put it on as it began: from a check's start in a job whose problem's tests
    check no operation in the reference's run (``_watch_every_case_template``)."""
    if not FLAGS[10]:
        FLAGS[10] = 1
        above = []
        while len_function_stack() > 0:
            above.append(pop_function())
        push_function(FUNCTION_MODE)
        while above:
            push_function(above.pop())


def _watch_every_case_template(on: Any) -> None:
    """Set once, by the harness before the learner's import: whether every case begins with the
    function mode on. Set again (or after a case began), it changes nothing and is tampering,
    reported in the case running or, from the learner's import, as the next case begins."""
    if FLAGS[11]:
        if FLAGS[3]:
            EMIT("tampered", WATCH_SET_AGAIN)
        else:
            FLAGS[12] = 1
        return
    FLAGS[11] = 1
    FLAGS[9] = 1 if on is True else 0


def _begin_case_template() -> None:
    # Every case is watched the same way, with or without a check in it: in a job whose problem
    # checks operations, the function mode goes on its stack for the whole case (inert while no
    # check is active), so what public PyTorch shows of the judge
    # (``torch.overrides.has_torch_function`` and its forms, a tensor subclass's dispatch) does
    # not depend on whether this case checks anything. Where the problem checks none (its
    # reference entered no check of operations: ``runner.jobs.Expectations.checks_operations``),
    # no case begins with it: there is nothing at that level to evade, and on every torch call
    # of every case it cost most of what the guard adds to such a verdict. The dispatch mode,
    # which only private names can see (refused by the source policy), goes on only inside a
    # check: on every aten operation of every case it cost ~15 % of a verdict.
    FLAGS[3] = 1
    FLAGS[6] = 0
    FLAGS[11] = 1  # the watch is decided once a case has begun
    if FLAGS[12]:
        FLAGS[12] = 0
        EMIT("tampered", WATCH_SET_AGAIN)
    if FLAGS[9]:
        FLAGS[10] = 1
        push_function(FUNCTION_MODE)


def _end_case_template() -> None:
    if not FLAGS[3]:
        EMIT("tampered", "a case of the judge ended twice")
        return
    FLAGS[3] = 0
    if FLAGS[8]:  # a count ran in this case: what ran after it, ops and values taken out (op_count)
        FLAGS[8] = 0
        FLAGS[4] = 0
        ops_after = AFTER[0] + STATE_COUNT[0]
        converted_after = AFTER[1] + CONVERTED[0]
        AFTER[0] = 0
        AFTER[1] = 0
        EMIT("op_count_after", int_repr(ops_after), int_repr(converted_after))
    if FLAGS[7]:  # the dispatch mode kept on, at the bottom, for forbid rules whose block ended
        FLAGS[7] = 0
        # Modes the case's code left above it stay for the torch state's check, which reports them.
        above = []
        found = False
        while len_dispatch_stack() > 0:
            mode = pop_dispatch(None)
            if mode is DISPATCH_MODE:
                found = True
                break
            above.append(mode)
        while above:
            push_dispatch(above.pop())
        if not found:
            EMIT("tampered", "the judge's interception of operations was removed during the case")
    TAIL.clear()
    if not FLAGS[10]:  # neither the case nor a check in it put the function mode on
        return
    FLAGS[10] = 0
    function_mode = None
    try:  # noqa: SIM105 (sealed: no module globals such as contextlib)
        function_mode = pop_function()
    except RuntimeError:
        pass
    if function_mode is not FUNCTION_MODE:
        EMIT("tampered", "the judge's interception of operations was removed during the case")


STATE_COUNT: Any = None
TAIL: Any = None
AFTER: Any = None
FLAGS: Any = None
CHECK_STEPS: Any = None
CONVERSIONS: Any = None
CONVERTED: Any = None
CONVERTED_BY: Any = None
numel: Any = None
FUNCTION_MODE_PRESENT: Any = None
FUNCTION_MODE_BOX: Any = None
len_function_stack: Any = None
function_stack_at: Any = None
len_dispatch_stack: Any = None
DISPATCH_TO_CASE_END: Any = None
FUNCTION_TO_CASE_END: Any = None
WATCH_SET_AGAIN: Any = None

sealed.prepare(
    _where_template,
    _note_template,
    _note_aten_template,
    _function_template,
    _function_mode_present_template,
    _dispatch_template,
    _enter_template,
    _leave_template,
    _dispatch_to_case_end_template,
    _function_to_case_end_template,
    _watch_every_case_template,
    _begin_case_template,
    _end_case_template,
)


def prepare(
    emit: Callable[..., None], check_steps: tuple[Callable[[], None], Callable[[], None]]
) -> tuple[OpsObserver, list[sealed.Patch]]:
    """Build this job's sealed modes (their classes immutable) and the sealed wrappers of the
    bypasses, which replace them when the guard comes into force (``sealed.apply_patches``).
    ``check_steps``: what runs once a check's modes are on their stacks, and as it ends before they
    leave (``runner.testing.torch_state``'s ``check_begin`` and ``check_end``)."""
    import torch
    from torch.overrides import TorchFunctionMode
    from torch.utils._python_dispatch import TorchDispatchMode

    names = op_names.api_names()
    state: list[Any] = []
    count = [0]
    # FLAGS: [in the function handler, function checks active, tampering reported, in a case,
    # counting conversions, allow blocks active, allow blocks entered in this case, the dispatch
    # mode kept on until the case ends for op rules whose block ended, a count ran in this case,
    # every case begins with the function mode on (the job's watch), the function mode is on in
    # this case, the job's watch is decided, it was set again outside a case]
    flags = [0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0]
    common = {
        "EMIT": emit,
        "STATE": state,
        "TAIL": [],
        "AFTER": [0, 0],
        "STATE_COUNT": count,
        "FLAGS": flags,
        "CONVERTED": [0],
        "int_repr": int.__repr__,
        "WATCH_SET_AGAIN": "the judge's watch of every case was set again",
    }
    converted_by = sealed.seal(
        op_count.converted_by_template, CONVERSIONS=op_names.CONVERSIONS, numel=torch._C.TensorBase.numel
    )
    where = sealed.seal(
        _where_template,
        SOLUTION=SOLUTION_PATH,
        SEALED_GLOBALS=sealed.SEALED_GLOBALS,
        **common,
    )
    note = sealed.seal(_note_template, WHERE=where, **common)
    note_aten = sealed.seal(_note_aten_template, NOTE=note, WHERE=where, **common)
    function_handler = sealed.seal(
        _function_template,
        NAMES=names,
        NOTE=note,
        CONVERSIONS=op_names.CONVERSIONS,
        CONVERTED_BY=converted_by,
        **common,
    )
    function_mode_box: list[Any] = [None]  # filled below, once the mode exists
    present = sealed.seal(
        _function_mode_present_template,
        FUNCTION_MODE_BOX=function_mode_box,
        len_function_stack=torch._C._len_torch_function_stack,
        function_stack_at=torch._C._get_function_stack_at,
    )
    dispatch_handler = sealed.seal(
        _dispatch_template,
        NOTE_ATEN=note_aten,
        FUNCTION_MODE_PRESENT=present,
        object_getattribute=object.__getattribute__,
        **common,
    )
    function_mode = sealed.mode_class("JudgeFunctionWatch", TorchFunctionMode, function_handler)()
    dispatch_mode = sealed.mode_class("JudgeDispatchWatch", TorchDispatchMode, dispatch_handler)()
    function_mode_box[0] = function_mode
    stack = {
        "FUNCTION_MODE": function_mode,
        "DISPATCH_MODE": dispatch_mode,
        "push_function": torch._C._push_on_torch_function_stack,
        "push_dispatch": torch._C._push_on_torch_dispatch_stack,
        "pop_function": torch._C._pop_torch_function_stack,
        "pop_dispatch": torch._C._pop_torch_dispatch_stack,
        "len_dispatch_stack": torch._C._len_torch_dispatch_stack,
        "len_function_stack": torch._C._len_torch_function_stack,
    }
    # the other sealed modes' watches: a bypass called while one is on is reported too
    watching = sealed.seal(
        op_bypasses.watching_template,
        WATCHES=(writes.WATCHING, peak_memory.WATCHING, random_draws.WATCHING, flag_writes.WATCHING),
    )
    wrappers: dict[str, Any] = {}  # one per bypass, in every module that holds it
    patches: list[sealed.Patch] = []
    for module, name, original in op_bypasses.bypass_targets():
        if name not in wrappers:
            wrappers[name] = sealed.seal(
                op_bypasses.bypass_template,
                ORIGINAL=original,
                WHAT=name,
                WATCHING=watching,
                **common,
            )
        patches.append(sealed.Patch(module, name, original, wrappers[name]))
    to_case_end = sealed.seal(_dispatch_to_case_end_template, **stack, **common)
    function_to_case_end = sealed.seal(_function_to_case_end_template, **stack, **common)
    observer = OpsObserver(
        enter=sealed.seal(
            _enter_template,
            CHECK_STEPS=check_steps,
            FUNCTION_TO_CASE_END=function_to_case_end,
            **stack,
            **common,
        ),
        leave=sealed.seal(
            _leave_template, CHECK_STEPS=check_steps, DISPATCH_TO_CASE_END=to_case_end, **stack, **common
        ),
        count=sealed.seal(
            op_count.count_template,
            DISPATCH_TO_CASE_END=to_case_end,
            FUNCTION_TO_CASE_END=function_to_case_end,
            **stack,
            **common,
        ),
        declare_vectorised=sealed.seal(op_count.declare_vectorised_template, **common),
        begin_case=sealed.seal(_begin_case_template, **stack, **common),
        end_case=sealed.seal(_end_case_template, **stack, **common),
        watch_every_case=sealed.seal(_watch_every_case_template, **common),
        modes=(function_mode, dispatch_mode),
    )
    return observer, patches
