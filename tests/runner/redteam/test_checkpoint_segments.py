"""manual-activation-checkpointing's rules against the routes around its call log, in the real
sandbox (``checked_runner``, as production judges).

The tests log every block call by phase, but the learner holds the logging wrappers: one checkpoint
around the whole stack computed below the log, with the logged blocks called for show in the order
the tests expect, was ``accepted``. ``checkpoint-every-segment`` is now measured on memory: the peak
bytes ``backward()``'s operations hold at once, against the same stack checkpointed segment by
segment (``runner.testing.observe_peak_memory``); ``activations-freed`` also measures what the
forward pass leaves alive, however it is kept. Each class of route below fails on its rule's case,
whatever its call log says, and the honest neighbours still pass.

* Below the log: the wrapper's unlogged block (``block.inner``, ``children()``), the block's math
  by hand from its public submodules, parameters cloned up front — with show calls from tensor
  hooks, from a Function's backward, or by touching parameters under grad mode.
* Beside autograd: activations or block inputs kept as a Function's attributes, where saved-tensor
  hooks never see them; and, without the source policy, activations hidden from the judge's
  saved-tensor hooks by the learner's own hooks or selective checkpointing.
* Honest only where watched: per-segment checkpointing at the shapes a solution guesses are
  measured (by shape, depth, segment size, width, batch), the whole stack below the log elsewhere.
  Memory is measured in every stack a case runs, so each guess leaves a measured stack cheated.
"""

from __future__ import annotations

import pytest

from runner.engine import Runner
from runner.format.problem import ProblemFiles, load_problem_dir
from runner.jobs import Expectations, JudgeResult
from tests.runner.conftest import BANK
from tests.runner.redteam.bank_files import bank_source, bank_variant

SLUG = "manual-activation-checkpointing"
SEGMENTS_CASE = "one_segment_recomputed_at_a_time"
RETAINED_CASE = "forward_keeps_one_input_per_segment"


@pytest.fixture(scope="module")
def checkpointing(runner: Runner) -> tuple[ProblemFiles, Expectations]:
    problem = load_problem_dir(BANK / SLUG)
    return problem, runner.compute_expectations(problem)


def _judge(runner: Runner, problem: tuple[ProblemFiles, Expectations], code: str) -> JudgeResult:
    files, expectations = problem
    return runner.judge(runner.job_for(files, expectations, code, "submit"))


def _failed(result: JudgeResult) -> dict[str, str]:
    return {c.name: c.message for c in result.cases if c.status != "passed"}


def _assert_breaks_checkpoint_every_segment(
    result: JudgeResult, *, also: frozenset[str] = frozenset()
) -> None:
    """The segments case fails with the rule's message; no case fails but it and those in ``also``."""
    failed = _failed(result)
    assert not result.accepted and SEGMENTS_CASE in failed, (result.verdict, failed)
    assert set(failed) <= {SEGMENTS_CASE, *also}, failed
    assert "checkpoint-every-segment" in failed[SEGMENTS_CASE], failed


# A whole-stack recompute in one Function, through `children()`, shows calls from its own backward.
CHILDREN_IN_A_FUNCTION = """
import torch


class WholeStack(torch.autograd.Function):
    @staticmethod
    def forward(ctx, blocks, segments, x, *params):
        ctx.blocks = blocks
        ctx.segments = segments
        ctx.save_for_backward(x)
        h = x
        for block in blocks:
            h = block(h)
        return h

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        with torch.no_grad():
            for segment in reversed(ctx.segments):
                for block in segment:
                    block(x)
        params = [p for block in ctx.blocks for p in block.parameters()]
        with torch.enable_grad():
            start = x.detach().requires_grad_(True)
            h = start
            for block in ctx.blocks:
                h = block(h)
        grads = torch.autograd.grad(h, [start, *params], grad, allow_unused=True)
        return (None, None, grads[0], *grads[1:])


def checkpointed_forward(blocks, x, segment_size):
    unlogged = []
    for block in blocks:
        children = list(block.children())
        unlogged.append(children[0] if len(children) == 1 else block)
    with torch.no_grad():
        shown = x
        for block in blocks:
            shown = block(shown)
    segments = [list(blocks[s : s + segment_size]) for s in range(0, len(blocks), segment_size)]
    params = [p for block in unlogged for p in block.parameters()]
    return WholeStack.apply(unlogged, segments, x, *params)
"""

# Every activation of a plain forward (under no_grad) kept as a Function's attribute; backward by
# hand from them, block by block through the unlogged blocks, with show calls.
ACTIVATIONS_AS_ATTRIBUTES = """
import torch


class Kept(torch.autograd.Function):
    @staticmethod
    def forward(ctx, blocks, segments, x, *params):
        ctx.blocks = blocks
        ctx.segments = segments
        ctx.graphs = []
        h = x
        for block in blocks:
            with torch.enable_grad():
                start = h.detach().requires_grad_(True)
                out = block(start)
            ctx.graphs.append((start, out))
            h = out.detach()
        return h

    @staticmethod
    def backward(ctx, grad):
        with torch.no_grad():
            for segment in reversed(ctx.segments):
                for block in segment:
                    block(ctx.graphs[0][0])
        grads = []
        for block, (start, out) in zip(reversed(ctx.blocks), reversed(ctx.graphs)):
            found = torch.autograd.grad(out, [start, *block.parameters()], grad, retain_graph=True)
            grad = found[0]
            grads = list(found[1:]) + grads
        return (None, None, grad, *grads)


def checkpointed_forward(blocks, x, segment_size):
    unlogged = [getattr(block, "inner", block) for block in blocks]
    with torch.no_grad():
        shown = x
        for block in blocks:
            shown = block(shown)
    segments = [list(blocks[s : s + segment_size]) for s in range(0, len(blocks), segment_size)]
    params = [p for block in unlogged for p in block.parameters()]
    return Kept.apply(unlogged, segments, x, *params)
"""

BELOW_THE_LOG = {
    "the unlogged inner block, show calls from a hook": "cheat_unlogged_inner_with_show_calls.py",
    "the block's math by hand from its submodules": "cheat_hand_math_from_submodules.py",
    "parameters cloned up front, touched for show": "cheat_parameter_clones.py",
}


@pytest.mark.parametrize("route", sorted(BELOW_THE_LOG))
def test_a_whole_stack_recompute_below_the_log_breaks_checkpoint_every_segment(
    checked_runner: Runner, checkpointing: tuple[ProblemFiles, Expectations], route: str
) -> None:
    result = _judge(checked_runner, checkpointing, bank_source(SLUG, f"mutants/{BELOW_THE_LOG[route]}"))
    # Cloned parameters are memory the forward pass leaves alive too: activations-freed may see them.
    _assert_breaks_checkpoint_every_segment(result, also=frozenset({RETAINED_CASE}))


WATCHED = "mutants/cheat_honest_only_on_watched_shapes.py"
GUESS = "if tuple(x.shape) == (256, 8):  # watched"
GUESSES = {
    "the stacks once measured (width 8, batch 256)": "tuple(x.shape) == (256, 8)",
    "deep stacks": "len(blocks) >= 8",
    "the usual segment sizes": "segment_size in (2, 3)",
    "wide blocks": "x.shape[1] >= 16",
    "large batches": "x.shape[0] >= 128",
    "many segments": "-(-len(blocks) // segment_size) >= 4",
    "an input that requires grad": "x.requires_grad",
}


@pytest.mark.parametrize("guess", sorted(GUESSES))
def test_checkpointing_honestly_only_where_memory_seems_watched_breaks_checkpoint_every_segment(
    checked_runner: Runner, checkpointing: tuple[ProblemFiles, Expectations], guess: str
) -> None:
    """Each guess of where memory is measured, honest there and a whole-stack recompute below the
    call log elsewhere, leaves some measured stack recomputed whole."""
    code = bank_variant(SLUG, WATCHED, GUESS, f"if {GUESSES[guess]}:")
    _assert_breaks_checkpoint_every_segment(_judge(checked_runner, checkpointing, code))


def test_a_whole_stack_function_through_children_breaks_checkpoint_every_segment(
    checked_runner: Runner, checkpointing: tuple[ProblemFiles, Expectations]
) -> None:
    _assert_breaks_checkpoint_every_segment(_judge(checked_runner, checkpointing, CHILDREN_IN_A_FUNCTION))


def test_block_inputs_kept_as_attributes_break_activations_freed(
    checked_runner: Runner, checkpointing: tuple[ProblemFiles, Expectations]
) -> None:
    code = bank_source(SLUG, "mutants/cheat_keeps_block_inputs_outside_autograd.py")
    result = _judge(checked_runner, checkpointing, code)
    failed = _failed(result)
    # Every block's input alive through backward may also exceed backward's budget (one block a segment).
    assert not result.accepted and RETAINED_CASE in failed, (result.verdict, failed)
    assert set(failed) <= {SEGMENTS_CASE, RETAINED_CASE}, failed
    assert "activations-freed" in failed[RETAINED_CASE], failed


def test_every_activation_kept_as_attributes_breaks_both_rules(
    checked_runner: Runner, checkpointing: tuple[ProblemFiles, Expectations]
) -> None:
    """Nothing saved for backward, nothing recomputed: what the forward pass left alive is read
    during backward, so both measurements see it."""
    result = _judge(checked_runner, checkpointing, ACTIVATIONS_AS_ATTRIBUTES)
    failed = _failed(result)
    assert not result.accepted and {SEGMENTS_CASE, RETAINED_CASE} <= set(failed), (result.verdict, failed)
    assert "activations-freed" in failed[RETAINED_CASE], failed


@pytest.mark.parametrize("name", ["function_with_backward_by_grad.py", "library_checkpoint_per_segment.py"])
def test_honest_checkpointing_is_accepted(
    checked_runner: Runner, checkpointing: tuple[ProblemFiles, Expectations], name: str
) -> None:
    """So the failures above can fail: the reference and the accepted alternatives pass."""
    files, _ = checkpointing
    for code in (files.solution, bank_source(SLUG, f"alternatives/{name}")):
        result = _judge(checked_runner, checkpointing, code)
        assert result.accepted, [(c.name, c.status, c.message) for c in result.cases]


@pytest.mark.parametrize(
    "name", ["cheat_hides_saved_tensors.py", "cheat_selective_checkpointing_keeps_float32.py"]
)
def test_activations_hidden_from_saved_tensor_hooks_are_still_measured_without_the_policy(
    runner: Runner, checkpointing: tuple[ProblemFiles, Expectations], name: str
) -> None:
    """The source policy refuses these (test_fresh_source_policy.py); without it, the measurement of
    what the forward pass leaves alive still sees every kept activation."""
    code = bank_source(SLUG, f"mutants/{name}")
    result = _judge(runner, checkpointing, code)
    failed = _failed(result)
    assert not result.accepted and RETAINED_CASE in failed, (name, result.verdict, failed)
    assert "activations-freed" in failed[RETAINED_CASE], failed
