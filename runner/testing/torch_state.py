"""torch's process-wide state put back at every case's boundaries, and a change reported (issue #39).

The cases of a job run one after another in one process, so a context the learner's code enters and
never leaves (``contextlib.ExitStack().enter_context(torch.no_grad())``, a generator suspended inside a
``with``: routes the source policy cannot read) would be what every later case's tests run under. At
each case's start (what solution.py's import left) and end (what the case's code left), the guard
reads the thread-local state a context can leave behind and compares it with what it was when the
job's guard came into force:

* grad mode and inference mode (``no_grad``, ``enable_grad``, ``set_grad_enabled``, ``inference_mode``);
* CPU autocast (``torch.autocast("cpu")``);
* the default dtype;
* the forward-AD level (``torch.autograd.forward_ad.dual_level()``);
* torch's function-mode stack (a ``torch.device(...)`` context or any other mode; the judge's own
  modes keep their place) and dispatch-mode stack, with ``torch.utils._device.CURRENT_DEVICE``.

Each difference is put back and sent as a ``left_state`` event naming what was left entered; the host
reports it as the learner's mistake (``runner.judging.observations``). The functions are sealed
(``runner.testing.sealed``): torch's readers and setters are constants captured before the learner's
code, so replacing ``torch.is_grad_enabled`` or the module's globals changes nothing they do.
Reading the state is a handful of C calls per case boundary (microseconds).

Inference mode has no setter: the guard leaves it by entering ``torch._C._InferenceMode(False)``,
whose guard it keeps for the rest of the job (its destructor would put the learner's state back).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from runner.testing import sealed

LEAVE = "enter contexts with `with` so they end with their block"


@dataclass(frozen=True)
class StateKeeper:
    # [function mode, dispatch mode]: the judge's (runner.testing.ops), which keep their place; filled
    # by the guard once they exist, held by nothing else but these sealed functions
    judge_modes: list[Any]
    baseline: Callable[[], None]  # what the state is now is what every case starts from
    restore: Callable[[str, str], None]  # (where, case name): put back, report each difference
    check_begin: Callable[[], None]  # a check of operations has begun: the stacks' heights marked
    check_end: Callable[[], None]  # it ends: the modes pushed since, but the judge's, taken off and reported


# Names the templates use; seal() binds each to a constant. Never read at run time.
EMIT: Any = None
BASE: Any = None
KEPT: Any = None
LEAVE_ADVICE: Any = None
is_grad_enabled: Any = None
set_grad_enabled: Any = None
is_inference: Any = None
inference_guard: Any = None
is_autocast: Any = None
set_autocast: Any = None
get_dtype: Any = None
set_dtype: Any = None
len_function_stack: Any = None
pop_function: Any = None
push_function: Any = None
len_dispatch_stack: Any = None
pop_dispatch: Any = None
push_dispatch: Any = None
JUDGE_MODES: Any = None
DEVICE_MODULE: Any = None
FORWARD_AD: Any = None
exit_dual_level: Any = None
module_dict: Any = None
module_setattr: Any = None
type_name: Any = None
STRIP: Any = None
MARKS: Any = None


def _baseline_template() -> None:
    BASE[0] = is_grad_enabled()
    BASE[1] = is_inference()
    BASE[2] = is_autocast("cpu")
    BASE[3] = get_dtype()
    BASE[4] = len_function_stack()
    BASE[5] = len_dispatch_stack()
    BASE[6] = module_dict(DEVICE_MODULE).get("CURRENT_DEVICE")
    BASE[7] = module_dict(FORWARD_AD).get("_current_level")


def _strip_modes_template(function_floor: int, dispatch_floor: int) -> Any:
    """Take every mode but the judge's off torch's stacks, down to the floors given; their names."""
    found = []
    kept = []  # the judge's own modes keep their place (its checks and cases end them: runner.testing.ops)
    while len_function_stack() > function_floor:
        mode = pop_function()
        if mode is JUDGE_MODES[0]:
            kept.append(mode)
        else:
            found.append(type_name(mode) + " (a torch function mode)")
    while kept:
        push_function(kept.pop())
    while len_dispatch_stack() > dispatch_floor:
        mode = pop_dispatch(None)
        if mode is JUDGE_MODES[1]:
            kept.append(mode)
        else:
            found.append(type_name(mode) + " (a torch dispatch mode)")
    while kept:
        push_dispatch(kept.pop())
    return found


def _restore_template(where: str, name: str) -> None:
    found = STRIP(BASE[4], BASE[5])
    if is_inference() != BASE[1]:
        if not BASE[1]:
            KEPT.append(inference_guard(False))
        found.append("torch.inference_mode()")
    if is_grad_enabled() != BASE[0]:
        set_grad_enabled(BASE[0])
        found.append("torch.no_grad()" if BASE[0] else "torch.enable_grad()")
    if is_autocast("cpu") != BASE[2]:
        set_autocast("cpu", BASE[2])
        found.append("torch.autocast('cpu')")
    if get_dtype() is not BASE[3]:
        set_dtype(BASE[3])
        found.append("a default dtype")
    if module_dict(DEVICE_MODULE).get("CURRENT_DEVICE") is not BASE[6]:
        module_setattr(DEVICE_MODULE, "CURRENT_DEVICE", BASE[6])
    level = module_dict(FORWARD_AD).get("_current_level")
    if level != BASE[7]:
        found.append("torch.autograd.forward_ad.dual_level()")
        while type(level) is int and level > BASE[7]:
            try:  # noqa: SIM105 (sealed: no module globals such as contextlib)
                exit_dual_level(level=level)
            except RuntimeError:
                pass
            level = level - 1
        module_setattr(FORWARD_AD, "_current_level", BASE[7])
    if found:
        what = ", ".join(found)
        if where == "import":
            EMIT(
                "left_state",
                what
                + " was left entered when solution.py was imported, or by your code that ran after the "
                + "previous case ended (an exception's `__str__`): "
                + LEAVE_ADVICE
                + ".",
            )
        else:
            EMIT(
                "left_state",
                what + " was left entered at the end of case " + name + ": " + LEAVE_ADVICE + ".",
            )


def _check_begin_template() -> None:
    """A check of operations has put its modes on torch's stacks: the heights they end at are marked."""
    MARKS.append((len_function_stack(), len_dispatch_stack()))


def _check_end_template() -> None:
    """Before a check of operations takes its modes off torch's stacks: a mode pushed since it began and
    still there is the learner's code's (the tests' own modes around the check are below the mark; the
    rest of the state is the case's, put back at its end)."""
    if not MARKS:
        return
    mark = MARKS.pop()
    found = STRIP(mark[0], mark[1])
    if found:
        EMIT(
            "left_state",
            ", ".join(found) + " was left entered inside a check of the tests: " + LEAVE_ADVICE + ".",
        )


sealed.prepare(
    _baseline_template, _strip_modes_template, _restore_template, _check_begin_template, _check_end_template
)


def prepare(emit: Callable[..., None], type_name_function: Callable[[object], str]) -> StateKeeper:
    """This job's sealed baseline and restore, around its emitter; the judge's function and dispatch
    modes (``runner.testing.ops``) go into ``judge_modes`` once they exist. Call before the guard's
    patches go in place (``pop_dispatch`` is torch's own, not the bypass wrapper)."""
    judge_modes: list[Any] = [None, None]
    import types

    import torch
    import torch.autograd.forward_ad as forward_ad
    import torch.utils._device as device_module

    common = {
        "EMIT": emit,
        "BASE": [True, False, False, torch.get_default_dtype(), 0, 0, None, -1],
        "KEPT": [],
        "MARKS": [],
        "LEAVE_ADVICE": LEAVE,
        "is_grad_enabled": torch._C.is_grad_enabled,
        "set_grad_enabled": torch._C._set_grad_enabled,
        "is_inference": torch._C.is_inference_mode_enabled,
        "inference_guard": torch._C._InferenceMode,
        "is_autocast": torch._C.is_autocast_enabled,
        "set_autocast": torch._C.set_autocast_enabled,
        "get_dtype": torch.get_default_dtype,
        "set_dtype": torch._C._set_default_dtype,
        "len_function_stack": torch._C._len_torch_function_stack,
        "pop_function": torch._C._pop_torch_function_stack,
        "len_dispatch_stack": torch._C._len_torch_dispatch_stack,
        "pop_dispatch": torch._C._pop_torch_dispatch_stack,
        "push_function": torch._C._push_on_torch_function_stack,
        "push_dispatch": torch._C._push_on_torch_dispatch_stack,
        "JUDGE_MODES": judge_modes,
        "DEVICE_MODULE": device_module,
        "FORWARD_AD": forward_ad,
        "exit_dual_level": torch._C._exit_dual_level,
        "module_dict": vars(types.ModuleType)["__dict__"].__get__,  # a module's own dict, as it is
        "module_setattr": types.ModuleType.__setattr__,
        "type_name": type_name_function,
    }
    strip = sealed.seal(_strip_modes_template, **common)
    return StateKeeper(
        judge_modes=judge_modes,
        baseline=sealed.seal(_baseline_template, **common),
        restore=sealed.seal(_restore_template, STRIP=strip, **common),
        check_begin=sealed.seal(_check_begin_template, **common),
        check_end=sealed.seal(_check_end_template, STRIP=strip, **common),
    )
