"""A forbid rule that names an operation holds for every route to the same kernel, in the real sandbox.

The rule names one public function (``torch.cdist``, ``torch.nn.functional.layer_norm``); the same
kernel is also reachable as a private aten name (``torch._cdist_forward``), a ``native_`` kernel
(``torch.native_layer_norm``), another public function that decomposes to it (``torch.layer_norm``),
``torch.ops.aten`` with any overload, and the C bindings. The rule is expanded to every aten
operator of the kernel's stem (``runner.testing.op_names.kernel_routes``), so each route fails the
rule's case; judged without the source policy (which refuses the private spellings first), so the
observation is what stops them. The reference still passes.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from runner.engine import Runner
from runner.format.problem import load_problem_dir
from runner.testing.op_names import kernel_routes, kernel_stem
from tests.runner.conftest import FIXTURES

TESTS = """
import torch

from runner.testing import case, forbid_ops


@case(public=True)
def example(solution):
    return solution.layer_norm(torch.tensor([[1.0, 3.0]]), eps=1e-5)


@case
def no_cdist(solution):
    with forbid_ops({"torch.cdist": "Do not call torch.cdist."}):
        return solution.pairwise_sq(torch.arange(6.0).reshape(3, 2))


@case
def no_layer_norm(solution):
    with forbid_ops({"torch.nn.functional.layer_norm": "Do not call layer_norm."}):
        return solution.layer_norm(torch.arange(6.0).reshape(2, 3), eps=1e-5)
"""

CDIST = "    sq = (points * points).sum(dim=1)\n    return sq[:, None] + sq[None, :] - 2 * points @ points.T"
CDIST_ROUTES = {
    "private aten name": "    return torch.ops.aten._cdist_forward(points, points, 2.0, None) ** 2",
    "private aten overload": (
        "    return torch.ops.aten._cdist_forward.default(points, points, 2.0, None) ** 2"
    ),
    "the private kernel's out= overload": (
        "    out = torch.empty(points.shape[0], points.shape[0])\n"
        "    torch.ops.aten._cdist_forward.out(points, points, 2.0, None, out=out)\n"
        "    return out ** 2"
    ),
}
LAYER_NORM = (
    "    mean = x.mean(dim=-1, keepdim=True)\n"
    "    var = x.var(dim=-1, unbiased=False, keepdim=True)\n"
    "    return (x - mean) / torch.sqrt(var + eps)"
)
LAYER_NORM_ROUTES = {
    "another public name": "    return torch.layer_norm(x, (x.shape[-1],), None, None, eps)",
    "native kernel": "    return torch.native_layer_norm(x, (x.shape[-1],), None, None, eps)[0]",
    "torch.ops overload": (
        "    return torch.ops.aten.native_layer_norm.default(x, [x.shape[-1]], None, None, eps)[0]"
    ),
    "C binding": (
        "    return torch._C._VariableFunctions.native_layer_norm(x, [x.shape[-1]], None, None, eps)[0]"
    ),
}


@pytest.fixture(scope="module")
def problem(runner: Runner, tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    folder = tmp_path_factory.mktemp("kernels") / "ops"
    shutil.copytree(FIXTURES / "ops", folder)
    shutil.rmtree(folder / "mutants")
    (folder / "tests.py").write_text(TESTS)
    loaded = load_problem_dir(Path(folder))
    return loaded, runner.compute_expectations(loaded)


def _failed(runner: Runner, problem, code: str) -> dict[str, str]:  # type: ignore[no-untyped-def]
    loaded, expectations = problem
    result = runner.judge(runner.job_for(loaded, expectations, code, "submit"))
    return {c.name: c.message for c in result.cases if c.status != "passed"}


@pytest.mark.parametrize("route", sorted(CDIST_ROUTES))
def test_a_forbidden_name_holds_for_every_route_to_its_kernel(runner: Runner, problem, route: str) -> None:  # type: ignore[no-untyped-def]
    code = problem[0].solution.replace(CDIST, CDIST_ROUTES[route])
    assert code != problem[0].solution
    failed = _failed(runner, problem, code)
    assert "Do not call torch.cdist." in failed.get("no_cdist", ""), failed


@pytest.mark.parametrize("route", sorted(LAYER_NORM_ROUTES))
def test_a_functional_name_holds_for_its_native_and_private_kernels(
    runner: Runner, problem, route: str
) -> None:  # type: ignore[no-untyped-def]
    code = problem[0].solution.replace(LAYER_NORM, LAYER_NORM_ROUTES[route])
    assert code != problem[0].solution
    failed = _failed(runner, problem, code)
    assert "Do not call layer_norm." in failed.get("no_layer_norm", ""), failed


def test_the_reference_passes_under_the_expanded_rules(runner: Runner, problem) -> None:  # type: ignore[no-untyped-def]
    assert _failed(runner, problem, problem[0].solution) == {}


def test_kernel_stems_group_the_names_of_one_kernel() -> None:
    """The expansion's reading of names (pure): private, native, fused, forward and loss forms."""
    assert kernel_stem("aten._native_batch_norm_legit_no_training") == "batch_norm"
    assert kernel_stem("torch.nn.functional.nll_loss") == kernel_stem("aten.nll_loss_forward")
    assert kernel_stem("aten._fused_adamw_") == kernel_stem("torch.optim.adamw")
    assert "aten._native_batch_norm_legit" in kernel_routes("torch.nn.functional.batch_norm")
    assert kernel_routes("aten.logsumexp") == ("aten.logsumexp",)  # a sibling kernel is not the same kernel
