"""Lazy modules in the real sandbox, and the opening they need attacked.

A lazy module's first forward materialises its ``UninitializedParameter``/``UninitializedBuffer``
objects: each gets its data and its class becomes ``nn.Parameter`` or ``torch.Tensor``. The guard
keeps ``torch.Tensor`` immutable, so that one class change is made by the guard's own sealed
``materialize`` (``runner.testing.lazy_tensors``) and every other ``__class__`` write on a tensor is
refused by the audit hook. The attempts run without the source policy (only the run-time layer
stands between them and a pass; the probe's reference returns 0, and each attempt returns 0 only if
its change went through); the honest lazy solution is judged with and without the policy.
"""

from __future__ import annotations

import textwrap

import pytest

from runner.engine import Runner
from runner.format.problem import ProblemFiles, load_problem_dir
from runner.jobs import Expectations
from runner.judging import source_policy
from runner.verdict import Verdict
from tests.runner.conftest import BANK, JudgeFn

MODIFIED = "Modifying or inspecting the judge is not allowed"

HONEST = textwrap.dedent("""
    import torch
    import torch.nn as nn


    def probe():
        model = nn.Sequential(nn.LazyConv2d(4, 3), nn.LazyBatchNorm2d(), nn.ReLU(), nn.Flatten(),
                              nn.LazyLinear(8), nn.LazyBatchNorm1d(), nn.LazyLinear(2))
        x = torch.randn(5, 3, 6, 6)
        model(x).sum().backward()
        optimiser = torch.optim.SGD(model.parameters(), lr=0.1)
        optimiser.step()
        model.eval()
        with torch.no_grad():
            model(x)
        norm = nn.LazyInstanceNorm1d(affine=True, track_running_stats=True)
        norm(torch.randn(2, 3, 4))
        buffer = nn.UninitializedBuffer()
        buffer.materialize((2, 3), dtype=torch.float64)
        kinds = [type(p) for p in model.parameters()] + [type(b) for b in model.buffers()]
        exact = (
            all(k is nn.Parameter for k in kinds[: len(list(model.parameters()))])
            and all(type(b) is torch.Tensor for b in model.buffers())
            and type(buffer) is torch.Tensor and buffer.shape == (2, 3) and buffer.dtype == torch.float64
            and type(norm.running_mean) is torch.Tensor
        )
        return 0 if exact else 1
""")


def test_lazy_modules_are_materialised_and_accepted(judge_probe: JudgeFn) -> None:
    for mode in ("run", "submit"):
        result = judge_probe(HONEST, mode=mode, time_s=30)
        assert result.verdict == Verdict.ACCEPTED, (mode, result.message, [c.message for c in result.cases])


def test_lazy_modules_are_accepted_through_the_source_policy(
    checked_runner: Runner, probe: tuple[ProblemFiles, Expectations]
) -> None:
    problem, expectations = probe
    assert source_policy.check(HONEST) is None
    result = checked_runner.judge(problem.job(expectations, HONEST, "submit"))
    assert result.verdict == Verdict.ACCEPTED, (result.message, [c.message for c in result.cases])


# residual-mlp-modulelist with lazy layers: the blocks infer their input size, materialised by one
# forward in __init__ (the tests fill the parameters by name before any forward of theirs).
LAZY_RESIDUAL_MLP = textwrap.dedent("""
    import torch
    import torch.nn as nn


    class ResidualBlock(nn.Module):
        def __init__(self, dim, hidden):
            super().__init__()
            self.fc1 = nn.LazyLinear(hidden)
            self.fc2 = nn.LazyLinear(dim)

        def forward(self, x):
            return x + self.fc2(torch.relu(self.fc1(x)))


    class ResidualMLP(nn.Module):
        def __init__(self, dim, hidden, num_blocks):
            super().__init__()
            self.blocks = nn.ModuleList([ResidualBlock(dim, hidden) for _ in range(num_blocks)])
            with torch.no_grad():
                self(torch.zeros(1, dim))

        def forward(self, x):
            for block in self.blocks:
                x = block(x)
            return x


    def build_residual_mlp(dim, hidden, num_blocks):
        return ResidualMLP(dim, hidden, num_blocks)
""")


def test_a_bank_problem_accepts_a_solution_with_lazy_layers(checked_runner: Runner) -> None:
    problem = load_problem_dir(BANK / "residual-mlp-modulelist")
    expectations = checked_runner.compute_expectations(problem)
    result = checked_runner.judge(checked_runner.job_for(problem, expectations, LAZY_RESIDUAL_MLP, "submit"))
    assert result.verdict == Verdict.ACCEPTED, (result.message, [c.message for c in result.cases])


# A lazy module materialised first, so the opening has just been used: it must be closed again.
PRELUDE = "import torch\nimport torch.nn as nn\nnn.LazyBatchNorm1d()(torch.randn(3, 2))\n\n"

# Each returns 0 only if a tensor's class (or data) changed as the attempt meant it to.
ABUSES = {
    "an ordinary tensor's class assigned": """
        class Mine(nn.Parameter):
            pass

        def probe():
            t = torch.zeros(1)
            t.__class__ = Mine
            return 0 if type(t) is Mine else 1
    """,
    "a parameter's class swapped for a subclass": """
        class Mine(nn.Parameter):
            def zero_(self):
                return self

        def probe():
            p = nn.Parameter(torch.ones(1))
            p.__class__ = Mine
            return 0 if type(p) is Mine else 1
    """,
    "object.__setattr__ on a parameter": """
        class Mine(nn.Parameter):
            pass

        def probe():
            p = nn.Linear(1, 1).weight
            object.__setattr__(p, "__class__", Mine)
            return 0 if type(p) is Mine else 1
    """,
    "a materialised buffer made uninitialised again": """
        def probe():
            bn = nn.LazyBatchNorm1d()
            bn(torch.randn(3, 2))
            bn.running_mean.__class__ = nn.UninitializedBuffer
            return 0 if type(bn.running_mean) is nn.UninitializedBuffer else 1
    """,
    "a subclass of UninitializedParameter with its own cls_to_become": """
        class Mine(nn.Parameter):
            pass

        class Sneaky(nn.UninitializedParameter):
            cls_to_become = Mine

        def probe():
            u = Sneaky()
            try:
                u.materialize((2,))
            except TypeError:
                pass
            return 0 if type(u) is Mine else 1
    """,
    "materialize called on a judge's tensor": """
        def probe():
            x = torch.ones(1)  # stands for a tensor the judge passed in
            for method in (nn.UninitializedBuffer.materialize, nn.UninitializedParameter.materialize):
                try:
                    method(x, (3,))
                except TypeError:
                    pass
            return 0 if x.shape != (1,) or type(x) is not torch.Tensor else 1
    """,
    "materialize called on a judge's parameter": """
        def probe():
            weight = nn.Linear(1, 1).weight  # stands for the judge's model
            try:
                nn.UninitializedParameter.materialize(weight, (4, 4))
            except TypeError:
                pass
            return 0 if weight.shape == (4, 4) else 1
    """,
}


@pytest.mark.parametrize("attempt", sorted(ABUSES))
def test_the_opening_changes_no_other_tensors_class(judge_probe: JudgeFn, attempt: str) -> None:
    source = PRELUDE + textwrap.dedent(ABUSES[attempt])
    result = judge_probe(source, mode="submit", time_s=30)
    assert result.verdict != Verdict.ACCEPTED, (attempt, result.message)
    assert result.verdict in (Verdict.RUNTIME_ERROR, Verdict.WRONG_ANSWER), (attempt, result.verdict)
    if result.verdict == Verdict.RUNTIME_ERROR:  # refused at the assignment: the judge's words
        assert all(MODIFIED in c.message or "materialize()" in c.message for c in result.cases), (
            attempt,
            [c.message for c in result.cases],
        )


@pytest.mark.parametrize(
    "base",
    [
        "torch.nn.UninitializedParameter",
        "torch.nn.parameter.UninitializedBuffer",
        "torch.nn.parameter.Parameter",
        "torch.nn.Buffer",
        "torch.masked.MaskedTensor",
    ],
)
def test_the_policy_refuses_a_tensor_class_by_any_path(base: str) -> None:
    source = f"import torch\nimport torch.masked\nclass Sneaky({base}):\n    pass\n"
    refusal = source_policy.check(source)
    assert refusal is not None and refusal.line == 3 and f"subclassing `{base}`" in refusal.message, refusal
    assert source_policy.check("import torch\nclass Mine(torch.nn.Linear):\n    pass\n") is None
