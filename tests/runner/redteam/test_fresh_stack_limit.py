"""Calling into the judge's observers at the interpreter's recursion limit, in the real sandbox with
the source policy: the sealed hook observer, the event emitter and torch's own dispatch then fail at
whatever frame the limit falls on, one frame of headroom more at each try. Whatever that leaves
half done must be the learner's verdict (an error, a failure or an honest pass), never the
platform's failure.
"""

from __future__ import annotations

from runner.engine import Runner
from runner.format.problem import load_problem_dir
from runner.verdict import Verdict
from tests.runner.conftest import BANK

AT_THE_LIMIT = """
import torch
import torch.nn as nn


def _rounded(t):
    return [round(v, 4) for v in t.flatten().tolist()]


def forward_hook_test() -> dict:
    torch.manual_seed(42)
    model = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 2))
    x = torch.tensor([[1.0, 2.0, 3.0]])
    activations = {}

    def hook(module, inputs, output):
        activations["first_linear"] = output.detach().clone()

    def deep(n):
        try:
            return deep(n + 1)
        except RecursionError:
            # Register, run and remove with no headroom; on failure let the caller retry with one
            # frame more, so every point of the observer's code meets the limit once.
            handle = model[0].register_forward_hook(hook)
            try:
                model(x)
            finally:
                handle.remove()
            return n

    deep(0)
    handle = model[0].register_forward_hook(hook)
    try:
        with torch.no_grad():
            out = model(x)
    finally:
        handle.remove()
    act = activations["first_linear"]
    return {
        "activation_shape": list(act.shape),
        "activation_values": _rounded(act),
        "final_output": _rounded(out),
    }
"""


def test_the_observers_at_the_recursion_limit_are_never_the_platforms_failure(checked_runner: Runner) -> None:
    problem = load_problem_dir(BANK / "forward-hook-activations")
    expectations = checked_runner.compute_expectations(problem)
    result = checked_runner.judge(checked_runner.job_for(problem, expectations, AT_THE_LIMIT, "submit"))
    assert result.verdict != Verdict.INTERNAL_ERROR and not result.cause, result
    # Hooks were registered more than once: the rule's case may not pass it, whatever else happened.
    if result.verdict == Verdict.ACCEPTED:
        raise AssertionError(("a second registration went unseen", result))
    assert result.cases and all(c.message for c in result.cases if c.status != "passed"), result
