"""The judge's newer observers against solution.py, in the real sandbox: ``observe_peak_memory``
(manual-activation-checkpointing), ``global_rng_draws`` (deterministic-dataloader,
class-balanced-sampler) and ``requires_grad_writes`` (gradient-penalty).

Each attack starts from a cheat the observer catches and adds a route around the observer itself,
written as the threat model allows (docs/security.md): arbitrary Python, with the session's runner
judging without the source policy (which refuses frames, ``sys``, ``weakref`` and private names
outright), so only the run-time layers stand — the sealed handlers, immutable classes, state held in
sealed constants. Every attack swallows the errors its own writes raise, so what rejects it is the
observer's measurement (the rule's failure), never an exception it could have avoided:

* the record reached through ``tests.py``'s frame and written (a peak lowered, a list cleared, a
  count zeroed), or its class patched;
* the memory observer's releases called early through the storages' weak references
  (``weakref.getweakrefs``), which ``weakref.finalize`` handed to anyone: ``accepted`` on main;
* a tensor subclass whose code runs inside the observer's handler, walking to the mode;
* the flags watch popped with the public ``TorchFunctionMode.__exit__`` and the mode pushed back;
* a random operator whose overload takes no generator (``torch.randint(0, 2**62, ())``, the
  ``torch.randperm(n)`` the bank's cheat already used), which the draws watch missed: ``accepted``
  on main with the source policy in force.
"""

from __future__ import annotations

import pytest

from runner.engine import Runner
from runner.format.problem import ProblemFiles, load_problem_dir
from runner.jobs import Expectations, JudgeResult
from tests.runner.conftest import BANK
from tests.runner.redteam.bank_files import bank_variant

CHECKPOINTING = "manual-activation-checkpointing"
LOADER = "deterministic-dataloader"
SAMPLER = "class-balanced-sampler"
PENALTY = "gradient-penalty"

Problem = tuple[ProblemFiles, Expectations]


@pytest.fixture(scope="module")
def problems(runner: Runner) -> dict[str, Problem]:
    found = {}
    for slug in (CHECKPOINTING, LOADER, SAMPLER, PENALTY):
        files = load_problem_dir(BANK / slug)
        found[slug] = (files, runner.compute_expectations(files))
    return found


def _judge(runner: Runner, problem: Problem, code: str) -> JudgeResult:
    files, expectations = problem
    return runner.judge(runner.job_for(files, expectations, code, "submit"))


def _assert_breaks(result: JudgeResult, case: str, rule: str) -> None:
    """Rejected by the rule's own case, with its message: never accepted, never an internal error."""
    failed = {c.name: c.message for c in result.cases if c.status != "passed"}
    assert result.verdict != "internal_error", result
    assert not result.accepted and case in failed, (result.verdict, failed)
    assert f"Breaks rule {rule}" in failed[case], failed


# A helper every attack below shares: tests.py's frames, walked from the learner's code.
FRAMES = """
import sys


def _frames():
    frame = sys._getframe(1)
    while frame is not None:
        yield frame
        frame = frame.f_back


def _try(write):
    try:
        write()
    except Exception:
        pass
"""


# --- observe_peak_memory -----------------------------------------------------------------------

KEPT_INPUTS = "mutants/cheat_keeps_block_inputs_outside_autograd.py"
RETAINED_CASE = "forward_keeps_one_input_per_segment"
FORWARD_RETURNS = "    return Stack.apply(list(blocks), segments, x, *params)\n"

LOWER_THE_RECORD = """
def _lower(record):
    def values():
        record.live_bytes = 0
        record.peak_bytes = 0

    def through_object():
        object.__setattr__(record, "live_bytes", 0)

    def its_class():
        type(record)._seen = lambda self, values: None
        type(record).live_bytes = 0

    def its_state():
        record._sizes.clear()
        record.live_bytes -= sum(record._sizes.values())

    for write in (values, through_object, its_class, its_state):
        _try(write)


def _lower_every_record():
    for frame in _frames():
        for value in list(frame.f_locals.values()):
            if hasattr(value, "peak_bytes"):
                _lower(value)
"""

RELEASE_EARLY = '''
import weakref


def _release(tensor):
    """Every callback on the tensor's storage, called now, while the storage lives."""
    storage = tensor.untyped_storage()
    for ref in weakref.getweakrefs(storage):
        callback = ref.__callback__
        if callback is not None:
            _try(lambda: callback(ref))
'''

PEAK_ATTACKS = {
    "the record reached through tests.py's frame, written and its class patched": (
        LOWER_THE_RECORD,
        "    out = Stack.apply(list(blocks), segments, x, *params)\n"
        "    _lower_every_record()\n    return out\n",
    ),
    "the releases called early through the storages' weak references": (
        RELEASE_EARLY,
        "    out = Stack.apply(list(blocks), segments, x, *params)\n"
        "    for h in KEPT:\n        _release(h)\n    return out\n",
    ),
}


@pytest.mark.parametrize("attack", sorted(PEAK_ATTACKS))
def test_the_memory_measurement_cannot_be_lowered_from_solution_py(
    runner: Runner, problems: dict[str, Problem], attack: str
) -> None:
    helpers, tail = PEAK_ATTACKS[attack]
    code = bank_variant(CHECKPOINTING, KEPT_INPUTS, FORWARD_RETURNS, tail) + FRAMES + helpers
    # the kept inputs, where the attacks find them (the cheat keeps them on its Function's ctx)
    code = code.replace("        ctx.inputs = []\n", "        ctx.inputs = KEPT\n        KEPT.clear()\n", 1)
    code += "\nKEPT = []\n"
    _assert_breaks(_judge(runner, problems[CHECKPOINTING], code), RETAINED_CASE, "activations-freed")


# A tensor subclass whose own dispatch runs inside the judge's handler: from there, every frame's
# locals are searched for a mode and a record, and what is found is switched off.
INSIDE_THE_HANDLER = """
import torch
from torch.overrides import TorchFunctionMode
from torch.utils._python_dispatch import TorchDispatchMode


def _passthrough(self, func, types, args=(), kwargs=None):
    return func(*args, **(kwargs or {}))


def _disarm(name, value):
    if hasattr(value, "peak_bytes") or hasattr(value, "record"):
        _lower(getattr(value, "record", value))
    if type(value) is list and name in ("drawn", "counts"):  # a handler's closure, read as a local
        _try(lambda: value.__setitem__(slice(None), [0] * len(value) if name == "counts" else []))
    if isinstance(value, (TorchDispatchMode, TorchFunctionMode)):
        for attribute in ("__torch_dispatch__", "__torch_function__"):
            _try(lambda: setattr(type(value), attribute, _passthrough))
            _try(lambda: setattr(value, attribute, _passthrough.__get__(value)))


class Probe(torch.Tensor):
    @classmethod
    def __torch_dispatch__(cls, func, types, args=(), kwargs=None):
        for frame in _frames():
            for name, value in list(frame.f_locals.items()):
                _disarm(name, value)
        unwrapped = [torch.zeros(a.shape) if isinstance(a, Probe) else a for a in args]  # no re-entry
        return func(*unwrapped, **(kwargs or {}))


def _probe():
    torch.add(torch.zeros(1).as_subclass(Probe), 1)
"""


def test_code_inside_the_memory_handler_reaches_no_mode_or_record(
    runner: Runner, problems: dict[str, Problem]
) -> None:
    tail = "    _probe()\n" + FORWARD_RETURNS
    code = bank_variant(CHECKPOINTING, KEPT_INPUTS, FORWARD_RETURNS, tail) + FRAMES + LOWER_THE_RECORD
    _assert_breaks(
        _judge(runner, problems[CHECKPOINTING], code + INSIDE_THE_HANDLER), RETAINED_CASE, "activations-freed"
    )


def test_the_attacks_alone_keep_an_honest_checkpointing_accepted(
    runner: Runner, problems: dict[str, Problem]
) -> None:
    """So the failures above can fail: the reference with every attack's code run, and failing, passes."""
    files, _ = problems[CHECKPOINTING]
    attacks = (
        "_honest = checkpointed_forward\n\n\n"
        "def checkpointed_forward(blocks, x, segment_size):\n"
        "    h = _honest(blocks, x, segment_size)\n"
        "    _lower_every_record()\n    _release(h)\n    _probe()\n"
        "    return h\n"
    )
    code = files.solution + FRAMES + LOWER_THE_RECORD + RELEASE_EARLY + INSIDE_THE_HANDLER + attacks
    result = _judge(runner, problems[CHECKPOINTING], code)
    assert result.accepted, [(c.name, c.status, c.message) for c in result.cases]


# --- global_rng_draws --------------------------------------------------------------------------

GLOBAL_DRAWS = "mutants/cheat_global_rng_saved_and_restored.py"
LOADER_CASE = "global_rng_does_not_matter"
SAMPLER_CASE = "reproducible_and_independent_of_global_rng"

CLEAR_THE_DRAWS = """
def _clear_the_draws():
    for frame in _frames():
        for name, value in list(frame.f_locals.items()):
            if type(value) is list and "draws" in name:
                _try(value.clear)
"""


def test_a_random_operator_without_a_generator_argument_is_a_global_draw(
    checked_runner: Runner, problems: dict[str, Problem]
) -> None:
    """``aten.randint.low`` and ``aten.randperm.default`` take no generator: they draw from the global
    one. The bank's cheat drew its base seed with ``random_()`` (which takes one); drawn with
    ``torch.randint`` instead it was ``accepted`` on main, under the source policy."""
    code = bank_variant(
        LOADER, GLOBAL_DRAWS, "torch.empty((), dtype=torch.int64).random_()", "torch.randint(0, 2**62, ())"
    )
    _assert_breaks(_judge(checked_runner, problems[LOADER], code), LOADER_CASE, "own-generator-not-global")


def test_the_draws_cleared_through_tests_pys_frame_break_the_rule(
    runner: Runner, problems: dict[str, Problem]
) -> None:
    code = bank_variant(
        SAMPLER,
        GLOBAL_DRAWS,
        "        yield from iter(drawn.tolist())\n",
        "        _clear_the_draws()\n        yield from iter(drawn.tolist())\n",
    )
    result = _judge(runner, problems[SAMPLER], code + FRAMES + CLEAR_THE_DRAWS)
    _assert_breaks(result, SAMPLER_CASE, "own-seeded-generator")


def test_code_inside_the_draws_handler_reaches_no_mode(runner: Runner, problems: dict[str, Problem]) -> None:
    code = bank_variant(
        SAMPLER,
        GLOBAL_DRAWS,
        "        yield from iter(drawn.tolist())\n",
        "        _probe()\n        yield from iter(drawn.tolist())\n",
    )
    code = code.replace(
        "        saved = torch.get_rng_state()\n        torch.set_rng_state(self.mine)\n",
        "        _probe()\n        saved = torch.get_rng_state()\n        torch.set_rng_state(self.mine)\n",
        1,
    )
    code += FRAMES + LOWER_THE_RECORD + INSIDE_THE_HANDLER
    _assert_breaks(_judge(runner, problems[SAMPLER], code), SAMPLER_CASE, "own-seeded-generator")


# --- requires_grad_writes ----------------------------------------------------------------------

FLAG_CHEAT = "mutants/cheat_flag_changed_and_restored.py"
PENALTY_CASE = "inputs_untouched"
FLAG_TOGGLE = (
    "    real.requires_grad_(True)  # the caller's tensor, made a leaf for a moment\n"
    "    real.requires_grad_(False)\n"
)

ZERO_THE_COUNTS = """
def _zero_the_counts():
    for frame in _frames():
        for name, value in list(frame.f_locals.items()):
            if type(value) is list and name == "flag_writes":
                _try(lambda: value.__setitem__(slice(None), [0] * len(value)))
"""

# The public TorchFunctionMode's __exit__ pops whatever mode is on top; the mode found from inside
# its handler (a subclass's __torch_function__ runs there) is pushed back with __enter__.
POP_AND_PUSH_BACK = '''
import torch
from torch.overrides import TorchFunctionMode

FOUND = []


class Finder(torch.Tensor):
    """Inside every function mode's handler (each passes the call down to the next): the modes in
    their handlers' frames, innermost first, so the last is the top of the stack."""

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        FOUND.clear()
        for frame in _frames():
            for value in list(frame.f_locals.values()):
                if isinstance(value, TorchFunctionMode):
                    FOUND.append(value)
        return super().__torch_function__(func, types, args, kwargs)


def _toggle_unseen(tensor):
    torch.add(torch.zeros(1).as_subclass(Finder), 1)
    _try(lambda: TorchFunctionMode.__exit__(None, None, None, None))  # pops the top mode
    tensor.requires_grad_(True)
    tensor.requires_grad_(False)
    if FOUND:
        _try(lambda: TorchFunctionMode.__enter__(FOUND[-1]))
'''

FLAG_ATTACKS = {
    "the counts zeroed through tests.py's frame": (ZERO_THE_COUNTS, FLAG_TOGGLE + "    _zero_the_counts()\n"),
    "the watch popped and pushed back": (POP_AND_PUSH_BACK, "    _toggle_unseen(real)\n"),
}


@pytest.mark.parametrize("attack", sorted(FLAG_ATTACKS))
def test_flag_writes_cannot_be_hidden_from_the_watch(
    runner: Runner, problems: dict[str, Problem], attack: str
) -> None:
    helpers, toggle = FLAG_ATTACKS[attack]
    code = bank_variant(PENALTY, FLAG_CHEAT, FLAG_TOGGLE, toggle) + FRAMES + helpers
    _assert_breaks(_judge(runner, problems[PENALTY], code), PENALTY_CASE, "inputs-not-modified")


def test_the_flag_attacks_alone_keep_an_honest_solution_accepted(
    runner: Runner, problems: dict[str, Problem]
) -> None:
    """So the failures above can fail: the attacks' code run around no write of the caller's flags."""
    code = bank_variant(
        PENALTY,
        FLAG_CHEAT,
        FLAG_TOGGLE,
        "    _zero_the_counts()\n    torch.add(torch.zeros(1).as_subclass(Finder), 1)\n",
    )
    result = _judge(runner, problems[PENALTY], code + FRAMES + ZERO_THE_COUNTS + POP_AND_PUSH_BACK)
    assert result.accepted, [(c.name, c.status, c.message) for c in result.cases]


# --- the dispatch watches taken off torch's stack and put back ------------------------------------

# Through private names (the source policy refuses them): the top dispatch mode popped around the
# draw and pushed back, so the watch is on top again when its block ends. The popping entry point is
# a sealed wrapper that reports tampering while any of the judge's sealed modes watches. On main it
# reported only inside op rules and check_call's watch: the draws' case passed, and the job failed
# only because another case (labels_not_modified) iterates the sampler under check_call's watch.
POPPED_AROUND_THE_DRAW = """
import torch


def _unseen(draw):
    try:
        mode = torch._C._pop_torch_dispatch_stack(None)
    except Exception:
        return draw()
    try:
        return draw()
    finally:
        torch._C._push_on_torch_dispatch_stack(mode)
"""


def test_a_watch_popped_around_the_draw_and_pushed_back_is_reported(
    runner: Runner, problems: dict[str, Problem]
) -> None:
    code = bank_variant(
        SAMPLER,
        GLOBAL_DRAWS,
        "        drawn = torch.multinomial(self.weights, self.num_samples, self.replacement)\n",
        "        drawn = _unseen(lambda: torch.multinomial(self.weights, self.num_samples, True))\n",
    )
    result = _judge(runner, problems[SAMPLER], code + POPPED_AROUND_THE_DRAW)
    failed = {c.name: c.message for c in result.cases if c.status != "passed"}
    assert result.verdict != "internal_error", result
    assert not result.accepted and SAMPLER_CASE in failed, (result.verdict, failed)
    assert "Modifying or inspecting the judge is not allowed" in failed[SAMPLER_CASE], failed


# --- what the memory watch ignores -------------------------------------------------------------

# The forward pass's measurement ignores x's and the parameters' storages (the caller holds them
# anyway). Grown through `x.data.resize_`, x's storage held every block's input in its tail, unseen:
# on main, under the source policy, activations-freed's case passed (the job failed only
# checkpoint-every-segment, on one stack). Only what an ignored storage held when the window was
# made is ignored now.
STASHED_IN_X = bank_variant(
    CHECKPOINTING,
    "mutants/cheat_keeps_block_inputs_outside_autograd.py",
    """        ctx.inputs = []
        h = x
        for block in blocks:
            ctx.inputs.append(h)
""",
    """        ctx.shape = x.shape
        n = x.numel()
        store = x.data
        store.resize_(n * (len(blocks) + 1))  # x's own storage, grown: x keeps its shape and values
        ctx.inputs = []
        h = x
        for i, block in enumerate(blocks):
            store[n * (i + 1) : n * (i + 2)].copy_(h.reshape(-1))
            ctx.inputs.append(store[n * (i + 1) : n * (i + 2)].view(ctx.shape))
""",
)


def test_activations_kept_in_an_ignored_storage_grown_for_them_are_counted(
    checked_runner: Runner, problems: dict[str, Problem]
) -> None:
    result = _judge(checked_runner, problems[CHECKPOINTING], STASHED_IN_X)
    _assert_breaks(result, RETAINED_CASE, "activations-freed")
