"""A problem's ``[source_policy] allow`` opens exactly what it names, and nothing beside it.

An allowance is a dotted name (``torch.ops``, ``numpy``); before, anything under it skipped every
rule, so allowing ``torch.ops`` opened ``redispatch`` and private kernels, allowing ``numpy`` its
private modules, and an allowance let its path be assigned. Now the parts after the allowance meet
every rule, assignment is never allowed, and the names whose allowance would open more than they
name (a namespace as a dict, computed attribute names, the interpreter's loaders) cannot be
allowed at all: ``problem.toml`` is refused. Each allowance below is tried with what it names
(accepted by the policy) and with its neighbours (refused); the torch.ops one again in the real
sandbox on stable-logsumexp, whose problem-wide rule still fails the kernel it allows naming.
"""

from __future__ import annotations

import dataclasses

import pytest

from runner.engine import Runner
from runner.format.problem import ProblemFormatError, load_problem_dir, parse_metadata
from runner.judging.source_policy import check
from runner.verdict import Verdict
from tests.runner.conftest import BANK


def _fn(body: str, imports: str = "import torch") -> str:
    return f"{imports}\n\n\ndef f(x):\n    return {body}\n"


# allowance -> (what it names: accepted, [its neighbours: refused])
WIDENINGS: dict[str, tuple[str, list[str]]] = {
    "torch.ops": (
        _fn("torch.ops.aten.logsumexp.default(x, [1])"),
        [
            _fn("torch.ops.aten.logsumexp.default.redispatch(None, x, [1])"),
            _fn("torch.ops.aten._log_softmax.default(x, 1, False)"),
            _fn('getattr(torch.ops.aten, "_softmax")(x, 1, False)'),
            _fn("aten._softmax(x, 1, False)", "import torch\nfrom torch.ops import aten"),
            _fn("torch.ops.aten.logsumexp.default._schema"),
            _fn("torch.ops.aten.logsumexp.default.__dict__"),
            _fn("torch.ops.sys"),
            "import torch\n\ntorch.ops.aten.logsumexp = torch.sum\n",
            _fn("torch._C._VariableFunctions.logsumexp(x, [1])"),
            _fn("torch.library.Library"),
        ],
    ),
    "numpy": (
        _fn("np.exp(x.numpy())", "import torch\nimport numpy as np"),
        [
            _fn("np._core.multiarray", "import torch\nimport numpy as np"),
            _fn("x", "import numpy._core"),
            _fn("np.ctypeslib.as_ctypes(x.numpy())", "import torch\nimport numpy as np"),
            "import numpy as np\n\nnp.exp = abs\n",
            _fn("x.untyped_storage()"),
        ],
    ),
    "sys": (
        _fn("sys.stdout.write('x')", "import torch\nimport sys"),
        [
            _fn("sys.modules['torch']", "import torch\nimport sys"),
            _fn("sys.settrace(None)", "import torch\nimport sys"),
            _fn("sys._getframe(0)", "import torch\nimport sys"),
            _fn("x", "from sys import modules"),
            _fn("getattr(sys, 'modules')", "import torch\nimport sys"),
        ],
    ),
    "torch.library": (
        _fn("torch.library.Library"),
        [
            _fn("torch.library._impls"),
            _fn("torch.ops.aten.add"),
            _fn("torch.library.Library.__init__.__code__"),
        ],
    ),
    "operator": (
        _fn("operator.add(x, 1)", "import torch\nimport operator"),
        [
            _fn('operator.attrgetter("_version")(x)', "import torch\nimport operator"),
            _fn('operator.methodcaller("untyped_storage")(x)', "import torch\nimport operator"),
        ],
    ),
}


@pytest.mark.parametrize("allowance", sorted(WIDENINGS))
def test_an_allowance_opens_what_it_names(allowance: str) -> None:
    named, _ = WIDENINGS[allowance]
    assert check(named) is not None, "the route is refused without the allowance"
    assert check(named, [allowance]) is None


@pytest.mark.parametrize(
    ("allowance", "attempt"),
    [(a, i) for a, (_, attempts) in sorted(WIDENINGS.items()) for i in range(len(attempts))],
)
def test_an_allowance_opens_nothing_beside_it(allowance: str, attempt: int) -> None:
    source = WIDENINGS[allowance][1][attempt]
    refusal = check(source, [allowance])
    assert refusal is not None, source
    assert "not allowed" in refusal.message, refusal.message


TOML = 'title = "P"\ndifficulty = "easy"\ncategory = "Testing"\nentry_point = "probe"\n'


@pytest.mark.parametrize(
    "name",
    ["vars", "__dict__", "globals", "__globals__", "importlib", "gc", "getattr", "exec", "__class__"],
)
def test_allowances_that_would_open_more_than_they_name_are_refused(name: str) -> None:
    """`vars` would write any read-only module's namespace as a dict; `getattr` and `exec` reach every
    private name by a computed one: a problem cannot allow them, whatever its reason."""
    with pytest.raises(ProblemFormatError, match="cannot be allowed"):
        parse_metadata(TOML + f'[source_policy]\nallow = ["{name}"]\nreason = "needed"\n', "probe-x")


def test_the_refused_dict_writes_are_what_the_read_only_modules_cannot_see() -> None:
    """Why `vars` is never allowable: with it, the policy would let a module's namespace be written."""
    source = "import torch\n\n\ndef f(x):\n    vars(torch.autograd)['grad'] = len\n    return x\n"
    assert check(source) is not None
    assert check(source, ["vars"]) is None  # what an allowance of vars would have opened


SOURCE = "import torch\n\n\ndef stable_logsumexp(x, dim):\n    return {expr}\n"


@pytest.fixture(scope="module")
def widened(runner: Runner):  # type: ignore[no-untyped-def]
    problem = dataclasses.replace(load_problem_dir(BANK / "stable-logsumexp"), source_allow=("torch.ops",))
    return problem, runner.compute_expectations(problem)


def test_allowing_torch_ops_in_the_sandbox_keeps_redispatch_refused(checked_runner: Runner, widened) -> None:  # type: ignore[no-untyped-def]
    problem, expectations = widened
    redispatch = SOURCE.format(
        expr="torch.ops.aten.logsumexp.default.redispatch(torch._C.DispatchKeySet('CPU'), x, [dim])"
    )
    result = checked_runner.judge(problem.job(expectations, redispatch, "submit"))
    assert result.verdict == Verdict.COMPILE_ERROR, result
    assert "redispatch" in result.message or "private" in result.message, result.message


def test_allowing_torch_ops_does_not_open_the_kernel_the_rule_forbids(
    checked_runner: Runner, widened
) -> None:  # type: ignore[no-untyped-def]
    """The name is allowed; the problem-wide rule still sees the kernel at the dispatch level."""
    problem, expectations = widened
    result = checked_runner.judge(
        problem.job(expectations, SOURCE.format(expr="torch.ops.aten.logsumexp.default(x, [dim])"), "submit")
    )
    assert result.verdict == Verdict.WRONG_ANSWER, result
    assert all(c.status == "failed" for c in result.cases), [(c.name, c.status) for c in result.cases]
    honest = "import torch\n\n\ndef stable_logsumexp(x, dim):\n" + (
        "    m = x.amax(dim, keepdim=True)\n"
        "    m = torch.where(torch.isfinite(m), m, torch.zeros_like(m))\n"
        "    return (m + (x - m).exp().sum(dim, keepdim=True).log()).squeeze(dim)\n"
    )
    assert checked_runner.judge(problem.job(expectations, honest, "submit")).accepted
