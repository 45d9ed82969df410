"""``assert_vectorised``'s count, sealed like the rest of ``runner.testing.ops``: how many aten
operations a call dispatches and how many values it hands to Python, at one input size.

The templates run inside the job's sealed observers (``runner.testing.ops.prepare`` seals them with
the same state); the host compares the counts with the reference's (``runner.judging.observations``).
"""

from __future__ import annotations

from typing import Any

from runner.testing import sealed

# Names the templates use; seal() binds each to a constant. Never read at run time.
EMIT: Any = None
STATE: Any = None
STATE_COUNT: Any = None
FLAGS: Any = None
CONVERSIONS: Any = None
CONVERTED: Any = None
FUNCTION_MODE: Any = None
DISPATCH_MODE: Any = None
numel: Any = None
int_repr: Any = None
push_function: Any = None
push_dispatch: Any = None
pop_function: Any = None
pop_dispatch: Any = None
DISPATCH_TO_CASE_END: Any = None
FUNCTION_TO_CASE_END: Any = None
TAIL: Any = None
AFTER: Any = None


def converted_by_template(name: str, args: Any) -> int:
    """How many values a call hands to Python: a whole tensor's elements (``tolist``,
    ``numpy``, ``repr``), else one (``item``, ``float``, ``len``)."""
    if CONVERSIONS[name] and args:
        try:
            n = numel(args[0])
        except Exception:
            return 1
        if type(n) is int:
            return n
    return 1


def declare_vectorised_template(rule: str, sizes: str) -> None:
    EMIT("check", "vectorised", rule, sizes)


def count_template(fn: Any, arg: Any, size: str) -> Any:
    case_wide = FLAGS[3]
    if FLAGS[8]:  # what ran since the last count of this case (ops._end_case_template reports it)
        AFTER[0] = AFTER[0] + STATE_COUNT[0]
        AFTER[1] = AFTER[1] + CONVERTED[0]
    STATE.append(({}, {}, set(), set(), "", set()))
    if not case_wide:
        push_function(FUNCTION_MODE)
    else:  # on until the case ends, where the job does not put it on in every case
        FUNCTION_TO_CASE_END()
    push_dispatch(DISPATCH_MODE)
    STATE_COUNT[0] = 0
    CONVERTED[0] = 0
    FLAGS[4] = 1
    try:
        result = fn(arg)
    finally:
        FLAGS[4] = 0
        counted = STATE_COUNT[0]
        converted = CONVERTED[0]
        STATE.pop()
        top = None
        try:  # noqa: SIM105 (sealed: no module globals such as contextlib)
            top = pop_dispatch(None)
        except RuntimeError:
            pass
        function_top = None
        if top is DISPATCH_MODE:
            try:  # noqa: SIM105 (sealed: no module globals such as contextlib)
                function_top = pop_function()
            except RuntimeError:
                pass
        if top is not DISPATCH_MODE or function_top is not FUNCTION_MODE:
            EMIT("tampered", "the judge's count of operations was removed")
        elif case_wide:
            push_function(FUNCTION_MODE)
            # The count goes on until the case ends: a loop left to a finaliser (a generator's
            # `finally`, run when the judge drops the input it was tied to) runs after this call.
            # An empty tail entry keeps the function handler counting conversions; the dispatch
            # mode stays on at the bottom of torch's stack, as for an op rule's tail.
            STATE_COUNT[0] = 0
            CONVERTED[0] = 0
            FLAGS[4] = 1
            if not FLAGS[8]:
                FLAGS[8] = 1
                TAIL.append(({}, set(), "", set()))
            DISPATCH_TO_CASE_END()
    EMIT("op_count", size, int_repr(counted))
    EMIT("py_count", size, int_repr(converted))
    return result


sealed.prepare(converted_by_template, declare_vectorised_template, count_template)
