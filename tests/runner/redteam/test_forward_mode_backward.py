"""A backward derived by forward-mode AD breaks logsumexp-function's own-backward rule, by any route.

A `Function` whose `backward` computes the gradient with dual tensors (`torch.autograd.forward_ad`,
`torch.func.jvp`, `jacfwd`, `linearize`) keeps no tensor for backward, so the pack hook that catches
reverse-mode derivations sees nothing. Forward AD needs a dual level and PyTorch allows one at a
time: the rule's case holds it for the whole backward. Entering another raises; leaving the
judge's clears the tangent of the judge's witness; making dual tensors at the judge's own level
checks the tangent's layout, an operator the case forbids. Each class is tried below with the
private bindings and without the source policy (the observation stops them, not the policy), then
through the public names with it (which work in the sandbox: the zygote loads
`torch._decomp.decompositions_for_jvp`, `make_dual`'s lazy import, which a job cannot read).
A public route cannot leave the judge's level: `forward_ad.exit_dual_level` only leaves the level
its own module entered, and its bookkeeping is private. The honest backward still passes. In the
real sandbox.
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

SLUG = "logsumexp-function"
CASE = "backward_is_your_function"
RULE = "own-backward"

TEMPLATE = """
import torch
import torch.autograd.forward_ad as fwad


def _lse(x, dim):
    m = x.amax(dim=dim, keepdim=True).detach()
    return (m + (x - m).exp().sum(dim=dim, keepdim=True).log()).squeeze(dim)


def _each(x, g, dim, tangent_of):
    # One tangent per position along dim, every slice at once: its tangent is that softmax column.
    columns = []
    for k in range(x.shape[dim]):
        t = torch.zeros_like(x)
        t.select(dim, k).fill_(1)
        columns.append(tangent_of(t) * g)
    return torch.stack(columns, dim=dim % x.dim())


{derive}


class LogSumExp(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, dim):
        ctx.dim = dim
        ctx.save_for_backward(x)
        return _lse(x, dim)

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return _derive(x, grad_output, ctx.dim), None


def logsumexp(x, dim):
    return LogSumExp.apply(x, dim)
"""

HONEST = """
def _derive(x, g, dim):
    out = _lse(x, dim)
    return g.unsqueeze(dim) * (x - out.unsqueeze(dim)).exp()
"""

# Private bindings (no lazy import of torch._decomp, which the sandbox cannot load after warm-up):
# forward AD that really computes the gradient, so only the rule's observation can stop it.
PRIVATE = {
    "its own dual level": """
        def _derive(x, g, dim):
            level = torch._C._enter_dual_level()
            try:
                def tangent_of(t):
                    out = _lse(torch._make_dual(x, t, level=level), dim)
                    return torch._unpack_dual(out, level=level).tangent
                return _each(x, g, dim, tangent_of)
            finally:
                torch._C._exit_dual_level(level=level)
    """,
    "the level already open": """
        def _derive(x, g, dim):
            def tangent_at(level):
                def tangent_of(t):
                    out = _lse(torch._make_dual(x, t, level=level), dim)
                    return torch._unpack_dual(out, level=level).tangent
                return tangent_of
            try:
                return _each(x, g, dim, tangent_at(0))
            except RuntimeError:  # none open: its own
                level = torch._C._enter_dual_level()
                try:
                    return _each(x, g, dim, tangent_at(level))
                finally:
                    torch._C._exit_dual_level(level=level)
    """,
    "the open level left, its own entered, one entered again": """
        def _derive(x, g, dim):
            reopen = False
            try:
                torch._C._exit_dual_level(level=0)
                reopen = True
            except RuntimeError:
                pass
            level = torch._C._enter_dual_level()
            try:
                def tangent_of(t):
                    out = _lse(torch._make_dual(x, t, level=level), dim)
                    return torch._unpack_dual(out, level=level).tangent
                grad = _each(x, g, dim, tangent_of)
            finally:
                torch._C._exit_dual_level(level=level)
            if reopen:
                torch._C._enter_dual_level()
            return grad
    """,
}

PUBLIC = {
    "forward_ad dual tensors": """
        def _derive(x, g, dim):
            with fwad.dual_level():
                return _each(x, g, dim, lambda t: fwad.unpack_dual(_lse(fwad.make_dual(x, t), dim)).tangent)
    """,
    "torch.func.jvp": """
        def _derive(x, g, dim):
            return _each(x, g, dim, lambda t: torch.func.jvp(lambda a: _lse(a, dim), (x,), (t,))[1])
    """,
    "torch.func.jacfwd": """
        def _derive(x, g, dim):
            return torch.tensordot(g, torch.func.jacfwd(lambda a: _lse(a, dim))(x), dims=g.dim())
    """,
    "torch.func.linearize": """
        def _derive(x, g, dim):
            _, jvp_fn = torch.func.linearize(lambda a: _lse(a, dim), x)
            return _each(x, g, dim, jvp_fn)
    """,
    "a dual level entered and left": """
        def _derive(x, g, dim):
            with fwad.dual_level():
                pass
            out = _lse(x, dim)
            return g.unsqueeze(dim) * (x - out.unsqueeze(dim)).exp()
    """,
}


def _code(derive: str) -> str:
    return TEMPLATE.format(derive=textwrap.dedent(derive).strip())


@functools.cache
def _problem(runner: Runner) -> tuple[ProblemFiles, Expectations]:
    problem = load_problem_dir(BANK / SLUG)
    return problem, runner.compute_expectations(problem)


def _judge(runner: Runner, code: str) -> JudgeResult:
    problem, expectations = _problem(runner)
    return runner.judge(runner.job_for(problem, expectations, code, "submit"))


def _assert_breaks_own_backward(result: JudgeResult, *, only: bool = False) -> None:
    assert result.verdict != Verdict.ACCEPTED, result.message
    failed = {c.name: c.message for c in result.cases if c.status != "passed"}
    assert CASE in failed and RULE in failed[CASE], failed
    if only:  # right values everywhere: only rules' observations reject it (the allow list too)
        assert set(failed) <= {CASE, "no_builtin_logsumexp"}, failed


def test_honest_backward_passes(runner: Runner) -> None:
    result = _judge(runner, _code(HONEST))
    assert result.verdict == Verdict.ACCEPTED, [
        (c.name, c.message) for c in result.cases if c.status != "passed"
    ]


@pytest.mark.parametrize("route", sorted(PRIVATE))
def test_forward_ad_through_private_bindings_breaks_the_rule(runner: Runner, route: str) -> None:
    _assert_breaks_own_backward(_judge(runner, _code(PRIVATE[route])), only=True)


@pytest.mark.parametrize("route", sorted(PUBLIC))
def test_forward_ad_through_public_names_breaks_the_rule(checked_runner: Runner, route: str) -> None:
    # linearize traces with make_fx, which writes nn.Module (read-only to judged code): it fails everywhere
    _assert_breaks_own_backward(
        _judge(checked_runner, _code(PUBLIC[route])), only=route != "torch.func.linearize"
    )


def test_forward_mode_ad_works_in_judged_code(judge_probe: JudgeFn) -> None:
    """Public forward-mode AD outside a rule is the learner's to use: its lazy import is loaded."""
    code = textwrap.dedent(
        """
        import torch
        import torch.autograd.forward_ad as fwad
        from torch.func import jacfwd, jvp

        def probe():
            x = torch.tensor([0.5, 2.0])
            _, d = jvp(torch.sin, (x,), (torch.ones(2),))
            with fwad.dual_level():
                tangent = fwad.unpack_dual(torch.exp(fwad.make_dual(x, torch.ones(2)))).tangent
            jacobian = jacfwd(torch.tanh)(x)
            ok = (
                torch.allclose(d, torch.cos(x))
                and torch.allclose(tangent, torch.exp(x))
                and torch.allclose(jacobian, torch.diag(1 - torch.tanh(x) ** 2))
            )
            return 0 if ok else 1
        """
    )
    result = judge_probe(code)
    assert result.verdict == Verdict.ACCEPTED, result.message
