"""An allowed-operations rule holds whatever route reaches the kernel, in every case of the problem.

The bank's stable-logsumexp declares, for every case (``op_rules_for_every_case``), that only the
operations its reference dispatches and a few listed alternatives may run. Each attempt below
reaches a log-sum-exp kernel by another route — public name, method, ``torch.special``, ``out=``, a
functional transform (``torch.func``), a sibling kernel no forbid list named (``log_softmax``,
``logcumsumexp``, ``softmax``), private aten names and the C bindings (with the source policy
judged without the source policy, so the observation is what stops them) — and must fail *every* case
with the rule's id and sentence. Honest solutions written other ways than the reference must pass.
In the real sandbox."""

from __future__ import annotations

import pytest

from runner.engine import Runner
from runner.format.problem import ProblemFiles, load_problem_dir
from runner.jobs import Expectations, JudgeResult
from tests.runner.conftest import BANK

RULE = "no-builtin-logsumexp"

SHAPE = """
def stable_logsumexp(x, dim):
    out = {expr}
    return out
"""

ROUTES = {
    "public name": "torch.logsumexp(x, dim)",
    "method": "x.logsumexp(dim)",
    "torch.special": "torch.special.logsumexp(x, dim)",
    "out= variant": "torch.logsumexp(x, dim, out=torch.empty(0, dtype=x.dtype))",
    "torch.func transform": "torch.func.vmap(lambda r: r.logsumexp(0), in_dims=dim)(x)",
    "sibling logcumsumexp": "torch.logcumsumexp(x, dim).select(dim, -1)",
    "sibling log_softmax": "(x.narrow(dim, 0, 1) - torch.log_softmax(x, dim).narrow(dim, 0, 1)).squeeze(dim)",
    "sibling softmax": "(x.narrow(dim, 0, 1) - torch.softmax(x, dim).narrow(dim, 0, 1).log()).squeeze(dim)",
    "nn.functional": "(x.narrow(dim, 0, 1) - torch.nn.functional.log_softmax(x, dim).narrow(dim, 0, 1))"
    ".squeeze(dim)",
}
PRIVATE_ROUTES = {
    "private aten name": "torch.ops.aten.logsumexp.default(x, [dim])",
    "private aten sibling": "torch.ops.aten._log_softmax.default(x, dim, False)"
    ".narrow(dim, 0, 1).neg().squeeze(dim) + x.narrow(dim, 0, 1).squeeze(dim)",
    "C binding": "torch._C._VariableFunctions.logsumexp(x, [dim])",
}

HONEST = {
    "max values and masked_fill": """
def stable_logsumexp(x, dim):
    m = torch.max(x, dim, keepdim=True).values
    m = m.masked_fill(torch.isinf(m), 0.0)
    return (m + (x - m).exp().sum(dim, keepdim=True).log()).squeeze(dim)
""",
    "in-place on its own tensors": """
def stable_logsumexp(x, dim):
    m = x.amax(dim, keepdim=True)
    m = torch.where(torch.isfinite(m), m, torch.zeros_like(m))
    shifted = x - m
    shifted.exp_()
    total = shifted.sum(dim, keepdim=True)
    total.log_()
    return (total + m).squeeze(dim)
""",
}


def _judge(runner: Runner, problem: tuple[ProblemFiles, Expectations], code: str) -> JudgeResult:
    files, expectations = problem
    return runner.judge(runner.job_for(files, expectations, code, "submit"))


@pytest.fixture(scope="module")
def logsumexp(runner: Runner) -> tuple[ProblemFiles, Expectations]:
    problem = load_problem_dir(BANK / "stable-logsumexp")
    return problem, runner.compute_expectations(problem)


def _assert_every_case_fails_by_the_rule(result: JudgeResult) -> None:
    assert result.verdict == "wrong_answer", (
        result.verdict,
        [(c.name, c.status, c.message) for c in result.cases],
    )
    assert result.cases and all(c.status == "failed" for c in result.cases), [
        (c.name, c.status, c.message) for c in result.cases
    ]
    # Every case names the problem-wide rule, whatever rule the case itself checks.
    for case in result.cases:
        assert case.message.startswith(f"Breaks rule {RULE}"), (case.name, case.message)
        assert "computes a log-sum-exp for you" in case.message, (case.name, case.message)


@pytest.mark.parametrize("route", sorted(ROUTES))
def test_every_public_route_to_the_kernel_fails_every_case(
    runner: Runner, logsumexp: tuple[ProblemFiles, Expectations], route: str
) -> None:
    code = "import torch\n" + SHAPE.format(expr=ROUTES[route])
    _assert_every_case_fails_by_the_rule(_judge(runner, logsumexp, code))


@pytest.mark.parametrize("route", sorted(PRIVATE_ROUTES))
def test_private_routes_fail_by_the_observation_alone(
    runner: Runner, logsumexp: tuple[ProblemFiles, Expectations], route: str
) -> None:
    # The session's runner judges without the source policy (which refuses these names): the
    # observation alone has to stop them.
    code = "import torch\n" + SHAPE.format(expr=PRIVATE_ROUTES[route])
    _assert_every_case_fails_by_the_rule(_judge(runner, logsumexp, code))


def test_a_sibling_kernel_is_named_with_its_line(
    runner: Runner, logsumexp: tuple[ProblemFiles, Expectations]
) -> None:
    code = "import torch\n" + SHAPE.format(expr=ROUTES["sibling log_softmax"])
    result = _judge(runner, logsumexp, code)
    example = next(c for c in result.cases if c.name == "example")
    assert "aten._log_softmax" in example.message and "solution.py, line 4" in example.message, (
        example.message
    )


@pytest.mark.parametrize("name", sorted(HONEST))
def test_honest_solutions_written_another_way_pass(
    runner: Runner, logsumexp: tuple[ProblemFiles, Expectations], name: str
) -> None:
    result = _judge(runner, logsumexp, "import torch\n" + HONEST[name])
    assert result.verdict == "accepted", [(c.name, c.status, c.message) for c in result.cases]


# batchnorm1d-from-scratch: the rule's case allows only the reference's operations (forward only).
# Each route computes training mode's normalisation with a built-in kernel; the running statistics
# are kept by hand, so only the rule's check can tell.
BN_TRAINING = "        x_hat = (x - mean) / torch.sqrt(var + self.eps)\n"
BN_ROUTES = {
    "F.batch_norm": "F.batch_norm(x, None, None, training=True, eps=self.eps)",
    "torch.batch_norm": "torch.batch_norm(x, None, None, None, None, True, 0.0, self.eps, False)",
    "instance_norm on the transposed input": "F.instance_norm(x.T[None], eps=self.eps)[0].T",
    "group_norm on the transposed input": "F.group_norm(x.T[None], x.shape[1], eps=self.eps)[0].T",
    "layer_norm on the transposed input": "F.layer_norm(x.T, (x.shape[0],), eps=self.eps).T",
    "private aten name": "torch.ops.aten.native_batch_norm.default("
    "x, None, None, None, None, True, 0.0, self.eps)[0]",
    "torch.func.vmap over features": "torch.func.vmap("
    "lambda c: F.layer_norm(c, c.shape, eps=self.eps), in_dims=1, out_dims=1)(x)",
}


@pytest.fixture(scope="module")
def batchnorm(runner: Runner) -> tuple[ProblemFiles, Expectations]:
    problem = load_problem_dir(BANK / "batchnorm1d-from-scratch")
    return problem, runner.compute_expectations(problem)


@pytest.mark.parametrize("route", sorted(BN_ROUTES))
def test_every_route_to_a_normalisation_kernel_fails_the_rule(
    runner: Runner, batchnorm: tuple[ProblemFiles, Expectations], route: str
) -> None:
    files, _ = batchnorm
    assert BN_TRAINING in files.solution
    code = "import torch.nn.functional as F\n" + files.solution.replace(
        BN_TRAINING,
        "        if self.training:\n"
        f"            x_hat = {BN_ROUTES[route]}\n"
        "        else:\n"
        "            x_hat = (x - mean) / torch.sqrt(var + self.eps)\n",
    )
    result = _judge(runner, batchnorm, code)
    case = next(c for c in result.cases if c.name == "no_builtin_batch_norm")
    assert case.status == "failed" and "no-builtin-batch-norm" in case.message, (route, case.message)
    assert not result.accepted
