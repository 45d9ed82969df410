"""The three seed problems as the platform was specified: a solution written plainly to each
statement, as a learner reads it, is accepted in the real sandbox; the wrong variants a learner is
likely to write (the old nested output format, the wrong layer, a hook left attached) are not.

These solutions are written from the statements, not copied from the references: if a statement
and its hidden cases drift apart (a format change, an unstated requirement), this test fails.
"""

from __future__ import annotations

import pytest

from runner import jobs
from runner.engine import Runner
from runner.format.problem import load_problem_dir
from runner.verdict import Verdict
from tests.runner.conftest import BANK

BACKWARD = """
import torch
import torch.nn as nn


def backward_hook_test():
    torch.manual_seed(42)
    model = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 1))
    x = torch.tensor([[1.0, 2.0, 3.0]])
    target = torch.tensor([[1.0]])
    grads = {}

    def hook(module, grad_input, grad_output):
        grads["input"] = grad_input
        grads["output"] = grad_output

    handle = model[2].register_full_backward_hook(hook)
    loss = nn.MSELoss()(model(x), target)
    loss.backward()
    handle.remove()
    return {
        "grad_output_shape": list(grads["output"][0].shape),
        "grad_input_shapes": [list(g.shape) for g in grads["input"]],
        "num_grad_inputs": len(grads["input"]),
    }
"""

FORWARD = """
import torch
import torch.nn as nn


def forward_hook_test():
    torch.manual_seed(42)
    model = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 2))
    captured = []
    handle = model[0].register_forward_hook(lambda module, inputs, output: captured.append(output))
    x = torch.tensor([[1.0, 2.0, 3.0]])
    out = model(x)
    handle.remove()
    activation = captured[0]
    return {
        "activation_shape": list(activation.shape),
        "activation_values": [round(v, 4) for v in activation[0].tolist()],
        "final_output": [round(v, 4) for v in out[0].tolist()],
    }
"""

MODIFY = """
import torch
import torch.nn as nn


def modify_hook_test():
    torch.manual_seed(42)
    model = nn.Sequential(nn.Linear(3, 4), nn.Linear(4, 2))
    x = torch.tensor([[1.0, 2.0, 3.0]])
    output_without = model(x)

    def clamp(module, inputs, output):
        return torch.clamp(output, -0.5, 0.5)

    handle = model[0].register_forward_hook(clamp)
    output_with = model(x)
    handle.remove()
    return {
        "output_without": [round(v, 4) for v in output_without[0].tolist()],
        "output_with": [round(v, 4) for v in output_with[0].tolist()],
        "outputs_differ": not torch.equal(output_without, output_with),
    }
"""

# Known wrong variants, each a small edit of the plain solution above.
WRONG = {
    "forward_nested_lists": (
        "forward-hook-activations",
        FORWARD.replace(
            "[round(v, 4) for v in activation[0].tolist()]",
            "[[round(v, 4) for v in row] for row in activation.tolist()]",
        ).replace(
            "[round(v, 4) for v in out[0].tolist()]", "[[round(v, 4) for v in row] for row in out.tolist()]"
        ),
    ),
    "forward_two_samples": (
        "forward-hook-activations",
        FORWARD.replace("[[1.0, 2.0, 3.0]]", "[[1.0, 2.0, 3.0], [-1.0, 0.5, -2.0]]"),
    ),
    "forward_hook_after_relu": ("forward-hook-activations", FORWARD.replace("model[0]", "model[1]")),
    "forward_hook_kept": ("forward-hook-activations", FORWARD.replace("    handle.remove()\n", "")),
    "backward_old_hook": (
        "backward-hook-gradients",
        BACKWARD.replace("register_full_backward_hook", "register_backward_hook"),
    ),
    "backward_first_linear": ("backward-hook-gradients", BACKWARD.replace("model[2]", "model[0]")),
    "modify_nested_lists": (
        "modify-activations-hook",
        MODIFY.replace("output_with[0].tolist()", "output_with.tolist()").replace(
            "[round(v, 4) for v in output_with.tolist()]",
            "[[round(v, 4) for v in row] for row in output_with.tolist()]",
        ),
    ),
    "modify_hook_returns_nothing": (
        "modify-activations-hook",
        MODIFY.replace("return torch.clamp(output, -0.5, 0.5)", "torch.clamp(output, -0.5, 0.5)"),
    ),
    "modify_clamps_upper_only": (
        "modify-activations-hook",
        MODIFY.replace("torch.clamp(output, -0.5, 0.5)", "torch.clamp(output, max=0.5)"),
    ),
}

STATEMENT_SOLUTIONS = {
    "backward-hook-gradients": BACKWARD,
    "forward-hook-activations": FORWARD,
    "modify-activations-hook": MODIFY,
}


@pytest.fixture(scope="module")
def judged(runner: Runner):  # type: ignore[no-untyped-def]
    expectations = {
        slug: runner.compute_expectations(load_problem_dir(BANK / slug)) for slug in STATEMENT_SOLUTIONS
    }

    def judge(slug: str, code: str) -> jobs.JudgeResult:
        problem = load_problem_dir(BANK / slug)
        return runner.judge(runner.job_for(problem, expectations[slug], code, "submit"))

    return judge


@pytest.mark.parametrize("slug", sorted(STATEMENT_SOLUTIONS))
def test_a_solution_written_to_the_statement_is_accepted(judged, slug: str) -> None:  # type: ignore[no-untyped-def]
    result = judged(slug, STATEMENT_SOLUTIONS[slug])
    assert result.verdict == Verdict.ACCEPTED, (result.message, [(c.name, c.message) for c in result.cases])


@pytest.mark.parametrize("name", sorted(WRONG))
def test_known_wrong_variants_are_rejected(judged, name: str) -> None:  # type: ignore[no-untyped-def]
    slug, code = WRONG[name]
    assert code != STATEMENT_SOLUTIONS[slug], "the variant must differ from the plain solution"
    result = judged(slug, code)
    assert result.verdict != Verdict.ACCEPTED, (name, result.message)


@pytest.mark.parametrize(
    ("slug", "fragment"),
    [
        ("forward-hook-activations", '"activation_shape": [1, 4],\n    "activation_values": ['),
        ("modify-activations-hook", '{"output_without": [-'),
        ("backward-hook-gradients", '{"grad_output_shape": [1, 1], "grad_input_shapes": [[1, 4]]'),
    ],
)
def test_the_statements_show_the_specified_format(slug: str, fragment: str) -> None:
    """Flat lists for one sample, as specified (validation checks the numbers themselves)."""
    assert fragment in load_problem_dir(BANK / slug).statement
