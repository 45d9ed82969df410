"""Learner code that runs after a check's window has closed, but before the case's value is read.

Class: *deferred work by finalisation.* A generator suspended inside ``try``/``finally`` runs its
``finally`` block when it is collected; tied to a tensor the tests own (an attribute of an input),
that is when the case's frame drops its locals — after the case's ``with forbid_ops(...)`` block
has ended, before the harness encodes the value the case returned. There the built-in computes
the answer out of sight and is copied into the tensor the solution returned. No special method,
no ``weakref``, no private name: plain Python the source policy allows. On main before this pass
the cheats below passed their problem's rule case (label-smoothed-cross-entropy's
``no_builtin_cross_entropy``, stable-bce-with-logits' ``no_builtin_bce`` — the whole submission
accepted —, batchnorm1d-from-scratch's ``no_builtin_batch_norm`` through a sibling kernel only its
allow rule catches, inverse-permutation's ``no_python_loop`` through a loop over every element):
an op rule now holds from its block's start to the case's end, and ``assert_vectorised`` counts
what runs after its calls until the case ends (``runner.testing.ops``, ``op_count``).

Class: *learner code in the harness's description of an exception.* The harness reads an
``OSError``'s ``errno`` to say whether a refused thread caused it; a subclass's ``errno`` property
ran there, outside every case, and killed the harness (every later case "not run"). It is now read
through ``OSError``'s own slot.

In the real sandbox."""

from __future__ import annotations

import pytest

from runner.engine import Runner
from runner.format.problem import ProblemFiles, load_problem_dir
from runner.jobs import Expectations, JudgeResult
from runner.verdict import Verdict
from tests.runner.conftest import BANK, JudgeFn
from tests.runner.redteam.bank_files import bank_edited

CROSS_ENTROPY_LATER = """
import torch
import torch.nn.functional as F


def _later(logits, target, smoothing, ignore_index, out):
    try:
        yield
    finally:
        with torch.no_grad():
            out.copy_(F.cross_entropy(logits, target, label_smoothing=smoothing, ignore_index=ignore_index))


def label_smoothed_cross_entropy(logits, target, smoothing, ignore_index=-100):
    if logits.requires_grad:
        return F.cross_entropy(logits, target, label_smoothing=smoothing, ignore_index=ignore_index)
    out = torch.zeros((), dtype=logits.dtype)
    later = _later(logits.detach().clone(), target.clone(), smoothing, ignore_index, out)
    next(later)
    target.keep = later  # its finally runs when the caller lets go of target
    return out
"""

# The aten operator itself (no public name for the function-level watch): without the source
# policy, so the dispatch-level watch is what must see it.
BCE_LATER = """
import torch


def _later(logits, targets, pos_weight, out):
    try:
        yield
    finally:
        bce = torch.ops.aten.binary_cross_entropy_with_logits.default
        out.copy_(bce(logits, targets, None, pos_weight, 1))


def stable_bce_with_logits(logits, targets, pos_weight=None, reduction="mean"):
    if reduction != "mean" or pos_weight is None:
        return torch.nn.functional.binary_cross_entropy_with_logits(
            logits, targets, pos_weight=pos_weight, reduction=reduction
        )
    out = torch.zeros((), dtype=logits.dtype)
    later = _later(logits.detach().clone(), targets.clone(), pos_weight.clone(), out)
    next(later)
    logits.keep = later
    return out
"""

# A sibling kernel no forbid list names (layer_norm over the transposed batch), left to a
# finaliser tied to the module the case drops: only the allow rule, held to the case's end, sees it.
BATCH_NORM_LATER = bank_edited(
    "batchnorm1d-from-scratch",
    "solution.py",
    (
        "\n\nclass BatchNorm1d(nn.Module):\n",
        """

def _later(x, out):
    try:
        yield
    finally:
        with torch.no_grad():
            out.copy_(torch.nn.functional.layer_norm(x.t(), (x.shape[0],)).t())


class BatchNorm1d(nn.Module):
""",
    ),
    (
        "                self.num_batches_tracked.add_(1)\n",
        """                self.num_batches_tracked.add_(1)
            if not x.requires_grad and self.eps == 1e-5 and x.shape[0] > 1:
                out = torch.zeros_like(x)
                g = _later(x.detach().clone(), out)
                next(g)
                # its finally runs when the caller lets go of the module
                self.later = getattr(self, "later", []) + [g]
                return out
""",
    ),
)

# A Python loop over every element, left to a finaliser tied to the input assert_vectorised
# builds and drops after each counted call: the count stays level, the loop fills the outputs.
LOOP_LATER = """
import torch


def _loop(perm, out):
    rows = perm.reshape(-1, perm.shape[-1]).tolist()
    flat = out.view(-1, perm.shape[-1])
    for r, row in enumerate(rows):
        for i, p in enumerate(row):
            flat[r, p] = i


def _later(perm, out):
    try:
        yield
    finally:
        _loop(perm, out)


def inverse_permutation(perm):
    out = torch.empty_like(perm)
    if perm.dim() == 2 and perm.shape[0] >= 2 and perm.shape[-1] >= 8:
        later = _later(perm.clone(), out)
        next(later)
        perm.keep = later  # runs when the judge lets go of the input, after its count
        return out
    _loop(perm, out)
    return out
"""

# The reference with harmless work left to a finaliser: late code that calls nothing forbidden
# is not a finding.
HONEST_LATER = """
import torch


def _later(x):
    try:
        yield
    finally:
        torch.log_softmax(x, dim=1).exp()


def label_smoothed_cross_entropy(logits, target, smoothing, ignore_index=-100):
    later = _later(logits.detach().clone())
    next(later)
    target.keep = later
    log_probs = torch.log_softmax(logits, dim=1)
    keep = target != ignore_index
    safe_target = torch.where(keep, target, torch.zeros_like(target))
    nll = -log_probs.gather(1, safe_target.unsqueeze(1)).squeeze(1)
    uniform = -log_probs.mean(dim=1)
    per_sample = (1.0 - smoothing) * nll + smoothing * uniform
    per_sample = torch.where(keep, per_sample, torch.zeros_like(per_sample))
    return per_sample.sum() / keep.sum()
"""


def _bank(runner: Runner, slug: str) -> tuple[ProblemFiles, Expectations]:
    files = load_problem_dir(BANK / slug)
    return files, runner.compute_expectations(files)


@pytest.fixture(scope="module")
def cross_entropy(runner: Runner) -> tuple[ProblemFiles, Expectations]:
    return _bank(runner, "label-smoothed-cross-entropy")


def _judge(runner: Runner, problem: tuple[ProblemFiles, Expectations], code: str) -> JudgeResult:
    files, expectations = problem
    return runner.judge(runner.job_for(files, expectations, code, "submit"))


def _rule_case(result: JudgeResult, name: str) -> str:
    (case,) = [c for c in result.cases if c.name == name]
    assert case.status == "failed", (case.status, case.message)
    return case.message


def test_a_builtin_run_by_a_finaliser_after_the_block_breaks_the_rule(
    checked_runner: Runner, cross_entropy: tuple[ProblemFiles, Expectations]
) -> None:
    result = _judge(checked_runner, cross_entropy, CROSS_ENTROPY_LATER)
    assert result.verdict == Verdict.WRONG_ANSWER, (result.verdict, result.message)
    message = _rule_case(result, "no_builtin_cross_entropy")
    assert "no-builtin-cross-entropy" in message and "solution.py, line 11" in message, message


def test_an_aten_operator_run_by_a_finaliser_after_the_block_breaks_the_rule(runner: Runner) -> None:
    result = _judge(runner, _bank(runner, "stable-bce-with-logits"), BCE_LATER)
    assert result.verdict == Verdict.WRONG_ANSWER, (result.verdict, result.message)
    message = _rule_case(result, "no_builtin_bce")
    assert "no-builtin-bce" in message and "binary_cross_entropy_with_logits" in message, message


def test_a_sibling_kernel_run_by_a_finaliser_after_an_allow_block_breaks_the_rule(
    checked_runner: Runner,
) -> None:
    result = _judge(checked_runner, _bank(checked_runner, "batchnorm1d-from-scratch"), BATCH_NORM_LATER)
    assert result.verdict == Verdict.WRONG_ANSWER, (result.verdict, result.message)
    message = _rule_case(result, "no_builtin_batch_norm")
    assert "no-builtin-batch-norm" in message and "layer_norm" in message, message


def test_a_loop_run_by_a_finaliser_after_the_count_breaks_the_rule(checked_runner: Runner) -> None:
    result = _judge(checked_runner, _bank(checked_runner, "inverse-permutation"), LOOP_LATER)
    message = _rule_case(result, "no_python_loop")
    assert "vectorised" in message and "after the counted calls returned" in message, message


def test_harmless_work_left_to_a_finaliser_still_passes(
    checked_runner: Runner, cross_entropy: tuple[ProblemFiles, Expectations]
) -> None:
    result = _judge(checked_runner, cross_entropy, HONEST_LATER)
    assert result.verdict == Verdict.ACCEPTED, (result.verdict, result.message)


ERRNO_PROPERTY = """
class Refused(OSError):
    @property
    def errno(self):
        raise KeyboardInterrupt


def probe():
    raise Refused("no")
"""


def test_an_errno_property_is_not_run_by_the_harness(judge_probe: JudgeFn) -> None:
    result = judge_probe(ERRNO_PROPERTY, mode="submit")
    assert result.verdict == Verdict.RUNTIME_ERROR and not result.cause, (result.verdict, result.message)
    # Every case ran and reports the learner's own exception: the harness did not die describing it.
    assert result.cases and all(c.status == "error" for c in result.cases), result.cases
    assert all("Refused: no" in c.message for c in result.cases), [c.message for c in result.cases]


BETWEEN_CASES = """
import contextlib
import torch

STACK = contextlib.ExitStack()
CALLS = []


class Loud(Exception):
    def __str__(self):
        STACK.enter_context(torch.no_grad())  # runs as the harness describes the failed case
        return "loud"


def probe():
    CALLS.append(1)
    if len(CALLS) == 1:
        raise Loud()
    return 0 if torch.is_grad_enabled() else 1
"""


def test_a_context_entered_between_cases_does_not_reach_the_next(judge_probe: JudgeFn) -> None:
    """Class: learner code the harness runs between cases (an exception's ``__str__``, after the
    case's end): what it leaves entered is put back before the next case starts, and named."""
    result = judge_probe(BETWEEN_CASES, mode="submit")
    first, second = result.cases
    assert first.status == "error" and "Loud: loud" in first.message, first.message
    print(second.status, second.message)
    assert second.status == "failed" and "torch.no_grad()" in (second.message or ""), second.message
