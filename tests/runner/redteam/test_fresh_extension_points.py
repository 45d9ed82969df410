"""Routes a second red team found through public PyTorch, in the real sandbox with the source policy
in force (``checked_runner``, as production judges). Each was ``accepted`` while breaking a rule of
the bank (or ended the harness) before; each is now the learner's failure, and the honest code
beside it still passes.

* Writes through an alias with a version counter of its own (``.data``, ``nn.Parameter``), where a
  rule's case read only ``x._version`` outside ``check_call``: a sampler iterated later, tensors in
  a list or a dict, a model's parameters, ``p.grad`` inside an optimizer's step. The cases now wrap
  the call in ``runner.testing.writes_during``, the sealed write watch of ``check_call``.
* ``requires_grad`` flags changed and put back (the setter, ``requires_grad_``,
  ``nn.Module.requires_grad_``) where the rule says "not even temporarily": no counter moves for a
  flag; ``runner.testing.requires_grad_writes`` counts each write in a ``TorchFunctionMode``.
* Gradient tracking kept out of sight of a call log: a no-grad call of the model shown to the hook
  while the pass that counts runs its layers (or ``torch.nn.functional`` on its weights) with
  tracking on; a backward derived by autograd inside a ``Function``'s own ``backward``
  (``torch.autograd.grad``, ``torch.func.vjp``). Autograd's pack hook sees what every such pass keeps.
* Draws from the global generator, seeded and put back (``get_rng_state``/``set_rng_state``,
  ``fork_rng``, ``torch.default_generator`` passed by name): the same draws as an own generator and
  the global state as it was; ``runner.testing.global_rng_draws`` sees which generator each random
  operator was given.
* State shown for the final read only: a backbone trained under ``no_grad()`` whose flags are cleared
  after training; a scheduler whose ``step()`` does the work of a ``get_lr()`` that computes
  nothing; objects restored with ``load_state_dict`` for show while the run is replayed on others;
  an optimizer with the groups the rule asks for, never stepped (the update done by hand).
* Work hidden inside one call: a Python loop over elements handed over by ``Tensor.apply_``,
  ``map_``, ``map2_`` (counted now like ``tolist()``); the whole score matrix as ``torch.einsum``'s
  view of its internal product, worked on in place (the memory check skipped views).
* Exceptions whose message, or whose class's name, is a ``str`` subclass with hostile methods (the
  harness sliced or formatted it and died, every later case lost), and other payloads: chains,
  cycles, groups, notes.
"""

from __future__ import annotations

import functools
import textwrap

import pytest

from runner.engine import Runner
from runner.format.problem import ProblemFiles, load_problem_dir
from runner.jobs import Expectations, JudgeResult
from runner.verdict import Verdict
from tests.runner.conftest import BANK, JudgeFn
from tests.runner.redteam.bank_files import bank_source, bank_variant


@functools.cache
def _problem(runner: Runner, slug: str) -> tuple[ProblemFiles, Expectations]:
    problem = load_problem_dir(BANK / slug)
    return problem, runner.compute_expectations(problem)


def _judge(runner: Runner, slug: str, code: str) -> JudgeResult:
    problem, expectations = _problem(runner, slug)
    return runner.judge(runner.job_for(problem, expectations, textwrap.dedent(code), "submit"))


def _failed_rules(result: JudgeResult) -> dict[str, str]:
    return {c.name: c.message for c in result.cases if c.status != "passed"}


def _assert_breaks(result: JudgeResult, case: str, rule: str) -> None:
    assert result.verdict == Verdict.WRONG_ANSWER, (result.verdict, result.message)
    failed = _failed_rules(result)
    assert case in failed and f"Breaks rule {rule}" in failed[case], failed


def _assert_accepted(result: JudgeResult) -> None:
    assert result.accepted, (result.verdict, _failed_rules(result))


# --- Writes by an alias with a counter of its own -------------------------------------------------

SAMPLER = """
import torch
from torch.utils.data import WeightedRandomSampler


def _weights(labels):
    return 1.0 / torch.bincount(labels)[labels].double()


def make_balanced_sampler(labels, num_samples, seed):
{body}
"""
SAMPLER_RETURN = (
    "    return WeightedRandomSampler(_weights(labels), num_samples=num_samples, replacement=True,\n"
    "                                 generator=torch.Generator().manual_seed(seed))"
)
ALIAS_WRITES = {
    ".data at the call": "    labels.data.add_(1)\n    labels.data.sub_(1)\n" + SAMPLER_RETURN,
    ".data under inference_mode": (
        "    with torch.inference_mode():\n        labels.data.neg_()\n        labels.data.neg_()\n"
        + SAMPLER_RETURN
    ),
    "an nn.Parameter alias": (
        "    alias = torch.nn.Parameter(labels, requires_grad=False)\n"
        "    with torch.no_grad():\n        alias.add_(1)\n        alias.sub_(1)\n" + SAMPLER_RETURN
    ),
    "a view of .data, written by an out= argument": (
        "    view = labels.data[:]\n    torch.add(view, 1, out=view)\n    torch.sub(view, 1, out=view)\n"
        + SAMPLER_RETURN
    ),
    # The write happens when the judge iterates the sampler, after the call returned.
    "inside the sampler's __iter__, run later by the judge": (
        "    class Lazy(WeightedRandomSampler):\n"
        "        def __iter__(self):\n"
        "            labels.data.add_(1)\n"
        "            labels.data.sub_(1)\n"
        "            return super().__iter__()\n"
        "    return Lazy(_weights(labels), num_samples=num_samples, replacement=True,\n"
        "                generator=torch.Generator().manual_seed(seed))"
    ),
}


@pytest.mark.parametrize("route", sorted(ALIAS_WRITES))
def test_a_write_through_an_alias_and_back_breaks_the_rule(checked_runner: Runner, route: str) -> None:
    result = _judge(checked_runner, "class-balanced-sampler", SAMPLER.format(body=ALIAS_WRITES[route]))
    _assert_breaks(result, "labels_not_modified", "labels-not-modified")


def test_the_honest_sampler_passes(checked_runner: Runner) -> None:
    result = _judge(checked_runner, "class-balanced-sampler", SAMPLER.format(body=SAMPLER_RETURN))
    _assert_accepted(result)


GRADS_IN_STEP = """
import torch


class CustomSGD(torch.optim.Optimizer):
    def __init__(self, params, lr=0.01, momentum=0.0, weight_decay=0.0):
        super().__init__(params, dict(lr=lr, momentum=momentum, weight_decay=weight_decay))

    @torch.no_grad()
    def step(self, closure=None):
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is None:
                    continue
                {scratch}
                grad = p.grad + group["weight_decay"] * p
                if group["momentum"]:
                    state = self.state[p]
                    if "buf" not in state:
                        state["buf"] = grad.clone()
                    else:
                        state["buf"].mul_(group["momentum"]).add_(grad)
                    grad = state["buf"]
                p.add_(grad, alpha=-group["lr"])
        return None


def custom_sgd_test():
    return {{}}
"""


@pytest.mark.parametrize(
    "scratch",
    ["p.grad.data.mul_(2.0); p.grad.data.mul_(0.5)", "g = p.grad.data; g.neg_(); g.neg_()"],
    ids=["grad.data", "a kept alias"],
)
def test_a_gradient_scratched_through_data_inside_step_breaks_the_rule(
    checked_runner: Runner, scratch: str
) -> None:
    result = _judge(checked_runner, "custom-sgd-optimizer", GRADS_IN_STEP.format(scratch=scratch))
    assert not result.accepted, result.message
    failed = _failed_rules(result)
    assert "Breaks rule step-touches-only-params-and-state" in failed.get(
        "step_never_writes_gradients", ""
    ), failed


# --- The global generator, seeded, drawn from and put back ----------------------------------------

SAMPLER_SLUG = "class-balanced-sampler"
GLOBAL_DRAWS = "mutants/cheat_global_rng_saved_and_restored.py"
SAVED_AROUND_A_DRAW = (
    "        saved = torch.get_rng_state()\n"
    "        torch.set_rng_state(self.mine)\n"
    "        drawn = torch.multinomial(self.weights, self.num_samples, self.replacement)\n"
    "        self.mine = torch.get_rng_state()\n"
    "        torch.set_rng_state(saved)\n"
)
SAVED_AND_RESTORED = {
    "get_rng_state and set_rng_state": bank_source(SAMPLER_SLUG, GLOBAL_DRAWS),
    "torch.random.fork_rng": bank_variant(
        SAMPLER_SLUG,
        GLOBAL_DRAWS,
        SAVED_AROUND_A_DRAW,
        "        with torch.random.fork_rng():\n"
        "            torch.set_rng_state(self.mine)\n"
        "            drawn = torch.multinomial(self.weights, self.num_samples, True)\n"
        "            self.mine = torch.get_rng_state()\n",
    ),
    "torch.default_generator passed as the generator": bank_variant(
        SAMPLER_SLUG,
        GLOBAL_DRAWS,
        SAVED_AROUND_A_DRAW,
        "        saved = torch.default_generator.get_state()\n"
        "        torch.default_generator.set_state(self.mine)\n"
        "        g = torch.default_generator\n"
        "        drawn = torch.multinomial(self.weights, self.num_samples, True, generator=g)\n"
        "        self.mine = torch.default_generator.get_state()\n"
        "        torch.default_generator.set_state(saved)\n",
    ),
}


@pytest.mark.parametrize("route", sorted(SAVED_AND_RESTORED))
def test_draws_from_the_global_generator_put_back_break_the_rule(checked_runner: Runner, route: str) -> None:
    result = _judge(checked_runner, SAMPLER_SLUG, SAVED_AND_RESTORED[route])
    _assert_breaks(result, "reproducible_and_independent_of_global_rng", "own-seeded-generator")


# --- requires_grad flags changed and put back ---------------------------------------------------

COUNT = """
import torch.nn as nn


def count_parameters(model):
{toggle}
    seen, shared, total, trainable = [], [], 0, 0
    for name, param in model.named_parameters(remove_duplicate=False):
        if any(p is param for p in seen):
            shared.append(name)
            continue
        seen.append(param)
        total += param.numel()
        trainable += param.numel() if param.requires_grad else 0
    return {{"total": total, "trainable": trainable, "frozen": total - trainable, "tensors": len(seen),
            "shared": sorted(shared)}}
"""
FLAG_TOGGLES = {
    "the property's setter": (
        "    flags = [(p, p.requires_grad) for p in model.parameters()]\n"
        "    for p, _ in flags:\n        p.requires_grad = False\n"
        "    for p, flag in flags:\n        p.requires_grad = flag"
    ),
    "requires_grad_": (
        "    flags = [(p, p.requires_grad) for p in model.parameters()]\n"
        "    for p, flag in flags:\n        p.requires_grad_(not flag)\n        p.requires_grad_(flag)"
    ),
    "nn.Module.requires_grad_": (
        "    flags = [(p, p.requires_grad) for p in model.parameters()]\n"
        "    model.requires_grad_(False)\n"
        "    for p, flag in flags:\n        p.requires_grad_(flag)"
    ),
}


@pytest.mark.parametrize("route", sorted(FLAG_TOGGLES))
def test_a_flag_changed_and_put_back_breaks_the_rule(checked_runner: Runner, route: str) -> None:
    result = _judge(checked_runner, "count-parameters-shared", COUNT.format(toggle=FLAG_TOGGLES[route]))
    _assert_breaks(result, "nested_sharing_and_model_unchanged", "model-not-modified")


def test_reading_the_flags_passes(checked_runner: Runner) -> None:
    result = _judge(checked_runner, "count-parameters-shared", COUNT.format(toggle="    pass"))
    _assert_accepted(result)


# --- Gradient tracking out of sight of a call log --------------------------------------------------

EVALUATE = """
import torch
import torch.nn.functional as F


def evaluate(model, loader, loss_fn):
    modes = [(module, module.training) for module in model.modules()]
    model.eval()
    total, correct, count = 0.0, 0, 0
    try:
        for inputs, targets in loader:
{forward}
            n = targets.shape[0]
            total += loss_fn(outputs, targets).item() * n
            correct += (outputs.argmax(dim=1) == targets).sum().item()
            count += n
    finally:
        for module, training in modes:
            module.training = training
    return {{"loss": total / count, "accuracy": correct / count}}
"""
SHOWN = (
    "            with torch.no_grad():\n                model(inputs)  # what the hook on the model sees\n"
)
TRACKED_PASSES = {
    "layer by layer": SHOWN + "            outputs = inputs\n            for layer in model:\n"
    "                outputs = layer(outputs)",
    "the functional API on the model's weights": SHOWN + "            lin1, bn, _, _, lin2 = model\n"
    "            h = F.linear(inputs, lin1.weight, lin1.bias)\n"
    "            h = F.batch_norm(\n"
    "                h, bn.running_mean, bn.running_var, bn.weight, bn.bias, False, 0.0, bn.eps\n"
    "            )\n"
    "            outputs = F.linear(F.relu(h), lin2.weight, lin2.bias)",
    "torch.func.functional_call": SHOWN
    + "            outputs = torch.func.functional_call(model, dict(model.named_parameters()), (inputs,))",
}


@pytest.mark.parametrize("route", sorted(TRACKED_PASSES))
def test_a_pass_with_gradient_tracking_beside_a_shown_one_breaks_the_rule(
    checked_runner: Runner, route: str
) -> None:
    result = _judge(checked_runner, "evaluation-loop", EVALUATE.format(forward=TRACKED_PASSES[route]))
    _assert_breaks(result, "forward_runs_in_eval_without_grad", "eval-mode-no-grad")


def test_the_honest_evaluation_passes(checked_runner: Runner) -> None:
    honest = "            with torch.no_grad():\n                outputs = model(inputs)"
    result = _judge(checked_runner, "evaluation-loop", EVALUATE.format(forward=honest))
    _assert_accepted(result)


LSE_SLUG = "logsumexp-function"
VJP_CHEAT = "mutants/cheat_func_vjp_inside_backward.py"
VJP_BACKWARD = (
    "        _, pullback = torch.func.vjp(lambda t: _lse(t, ctx.dim), x)\n"
    "        (g,) = pullback(grad_output)\n"
)


def _logsumexp_with_backward(body: str) -> str:
    """The bank's vjp cheat with another body for its backward (which ends ``return g, None``)."""
    return bank_variant(LSE_SLUG, VJP_CHEAT, VJP_BACKWARD, body + "\n")


DERIVED_BACKWARDS = {
    "torch.autograd.grad": bank_source(LSE_SLUG, "mutants/cheat_autograd_inside_backward.py"),
    "torch.func.vjp": bank_source(LSE_SLUG, VJP_CHEAT),
    "torch.func.grad": _logsumexp_with_backward(
        "        g = torch.func.grad(lambda t: (_lse(t, ctx.dim) * grad_output).sum())(x)"
    ),
    "backward() on a recomputed graph": _logsumexp_with_backward(
        "        with torch.enable_grad():\n"
        "            leaf = x.detach().requires_grad_(True)\n"
        "            (_lse(leaf, ctx.dim) * grad_output).sum().backward()\n"
        "            g = leaf.grad"
    ),
}


@pytest.mark.parametrize("route", sorted(DERIVED_BACKWARDS))
def test_a_backward_autograd_derives_inside_the_function_breaks_the_rule(
    checked_runner: Runner, route: str
) -> None:
    result = _judge(checked_runner, LSE_SLUG, DERIVED_BACKWARDS[route])
    assert not result.accepted, result.message
    # torch.func's transforms refuse to run under the pack hook: the learner's error, in the rule's case.
    failed = _failed_rules(result)
    assert "own-backward" in failed.get("backward_is_your_function", ""), failed


def test_a_backward_written_by_hand_passes(checked_runner: Runner) -> None:
    by_hand = "        g = grad_output.unsqueeze(ctx.dim) * (x - _lse(x, ctx.dim).unsqueeze(ctx.dim)).exp()"
    result = _judge(checked_runner, LSE_SLUG, _logsumexp_with_backward(by_hand))
    _assert_accepted(result)


# --- State shown for the final read only -----------------------------------------------------------

FREEZE_SLUG = "freeze-backbone"
FLAGS_AFTER_TRAINING = "mutants/cheat_flags_for_show_after_training.py"
FEATURES_UNDER_NO_GRAD = "        with torch.no_grad():\n            features = backbone(X)\n"
UNTRAINED_FEATURES = {
    "no_grad": bank_source(FREEZE_SLUG, FLAGS_AFTER_TRAINING),
    "detach": bank_variant(
        FREEZE_SLUG, FLAGS_AFTER_TRAINING, FEATURES_UNDER_NO_GRAD, "        features = backbone(X).detach()\n"
    ),
    "no_grad as a decorator": bank_variant(
        FREEZE_SLUG,
        FLAGS_AFTER_TRAINING,
        FEATURES_UNDER_NO_GRAD,
        "        features = torch.no_grad()(backbone)(X)\n",
    ),
}


@pytest.mark.parametrize("route", sorted(UNTRAINED_FEATURES))
def test_flags_cleared_only_after_training_break_the_rule(checked_runner: Runner, route: str) -> None:
    result = _judge(checked_runner, FREEZE_SLUG, UNTRAINED_FEATURES[route])
    _assert_breaks(result, "backbone_frozen_by_requires_grad", "freeze-by-requires-grad")


def test_a_schedule_kept_in_step_behind_an_empty_get_lr_breaks_the_rule(checked_runner: Runner) -> None:
    code = bank_source("warmup-inverse-sqrt-scheduler", "mutants/cheat_schedule_in_step_not_get_lr.py")
    result = _judge(checked_runner, "warmup-inverse-sqrt-scheduler", code)
    assert not result.accepted
    failed = _failed_rules(result)
    assert "Breaks rule lr-scheduler-subclass" in failed.get("is_a_scheduler_with_last_lr", ""), failed


def test_objects_restored_for_show_while_the_run_is_replayed_break_the_rule(checked_runner: Runner) -> None:
    """Every load_state_dict the case counts is called, on objects thrown away at once."""
    code = bank_source("resume-optimizer-state", "mutants/cheat_restores_for_show_and_replays.py")
    result = _judge(checked_runner, "resume-optimizer-state", code)
    _assert_breaks(result, "restores_all_three", "restore-from-checkpoint")


OPTIMIZER_RULES = {
    "freeze-backbone": "only-trainable-to-optimizer",
    "layer-weight-decay": "one-sgd-decay-groups",
    "per-layer-lr": "one-sgd-two-groups",
}


@pytest.mark.parametrize("slug", sorted(OPTIMIZER_RULES))
def test_an_optimizer_built_for_show_and_never_stepped_breaks_the_rule(
    checked_runner: Runner, slug: str
) -> None:
    """The groups the rule asks for, the update by hand with their hyperparameters."""
    code = bank_source(slug, "mutants/cheat_optimizer_for_show.py")
    result = _judge(checked_runner, slug, code)
    assert result.verdict == Verdict.WRONG_ANSWER, (result.verdict, result.message)
    assert f"Breaks rule {OPTIMIZER_RULES[slug]}" in result.message, result.message


# --- Work hidden inside one call -------------------------------------------------------------------

INVERSE = """
import torch


def inverse_permutation(perm):
    values = []

    def take(*v):
        values.append(v[0])
        return v[0]

    {take}
    n = perm.shape[-1]
    out = []
    for start in range(0, len(values), max(n, 1)):
        inv = [0] * n
        for i, p in enumerate(values[start : start + n]):
            inv[p] = i
        out.extend(inv)
    return torch.tensor(out, dtype=perm.dtype).reshape(perm.shape)
"""
PER_ELEMENT_CALLBACKS = {
    "apply_": "perm.clone().apply_(take)",
    "map_": "perm.clone().map_(perm, take)",
    "map2_": "perm.clone().map2_(perm, perm, take)",
}


@pytest.mark.parametrize("method", sorted(PER_ELEMENT_CALLBACKS))
def test_a_python_loop_inside_a_per_element_callback_breaks_the_rule(
    checked_runner: Runner, method: str
) -> None:
    """One call hands every element to a Python function: counted like `tolist()`."""
    result = _judge(checked_runner, "inverse-permutation", INVERSE.format(take=PER_ELEMENT_CALLBACKS[method]))
    _assert_breaks(result, "no_python_loop", "vectorised")


def test_the_whole_score_matrix_as_a_view_worked_in_place_breaks_the_rule(checked_runner: Runner) -> None:
    code = bank_source("chunked-attention", "mutants/cheat_einsum_view_in_place.py")
    result = _judge(checked_runner, "chunked-attention", code)
    _assert_breaks(result, "never_builds_the_score_matrix", "memory-bound")


# --- Exceptions and their payloads -----------------------------------------------------------------

RAISED = {
    "a str subclass message whose methods raise": (
        "class S(str):\n"
        "        def __getitem__(self, i):\n"
        "            raise RuntimeError('getitem')\n"
        "        def __len__(self):\n"
        "            return -1\n"
        "        def replace(self, *a):\n"
        "            raise RuntimeError('replace')\n"
        "        def encode(self, *a, **k):\n"
        "            raise RuntimeError('encode')\n"
        "    class E(Exception):\n"
        "        def __str__(self):\n"
        "            return S('boom')\n"
        "    raise E()"
    ),
    "a cause chain 200,000 long": (
        "e = ValueError('boom')\n    for i in range(200000):\n        n = ValueError('boom')\n"
        "        n.__cause__ = e\n        e = n\n    raise e"
    ),
    "a cause cycle": (
        "a = ValueError('boom')\n    b = ValueError('b')\n"
        "    a.__cause__ = b\n    b.__cause__ = a\n    raise a"
    ),
    "a context cycle": (
        "a = ValueError('boom')\n    b = ValueError('b')\n"
        "    a.__context__ = b\n    b.__context__ = a\n    raise a"
    ),
    "exception groups nested 100,000 deep": (
        "e = ValueError('x')\n    for _ in range(100000):\n"
        "        e = ExceptionGroup('boom', [e])\n    raise e"
    ),
    "notes that are not a list": "e = ValueError('boom')\n    e.__notes__ = 5\n    raise e",
    "notes whose iteration raises": (
        "class N(list):\n        def __iter__(self):\n            raise RuntimeError('notes')\n"
        "    e = ValueError('boom')\n    e.__notes__ = N(['a'])\n    raise e"
    ),
    "a class whose name is a str subclass with hostile methods": (
        "class S(str):\n"
        "        def __format__(self, spec):\n"
        "            raise RuntimeError('format')\n"
        "        def __getitem__(self, i):\n"
        "            raise RuntimeError('getitem')\n"
        "    class E(Exception):\n"
        "        pass\n"
        "    E.__name__ = S('E')\n"
        "    raise E('boom')"
    ),
    "a BaseException of the learner's": "class B(BaseException):\n        pass\n    raise B('boom')",
    "a class that names the judge": (
        "class E(Exception):\n        pass\n    E.__module__ = 'runner.sandbox.harness'\n"
        "    E.__qualname__ = 'JudgeFailure'\n    raise E('boom')"
    ),
}


@pytest.mark.parametrize("name", sorted(RAISED))
def test_a_raised_payload_is_the_learners_error_with_its_message(judge_probe: JudgeFn, name: str) -> None:
    result = judge_probe(f"def probe():\n    {RAISED[name]}\n", mode="submit")
    assert result.verdict == Verdict.RUNTIME_ERROR and not result.cause, (
        name,
        result.verdict,
        result.message,
    )
    # The harness reported every case (none lost to a crash), with the learner's message.
    assert result.cases and all(c.status == "error" for c in result.cases), (name, result.cases)
    assert all("boom" in c.message for c in result.cases), (name, [c.message for c in result.cases])
