"""Loops the operation count cannot see: ``assert_vectorised`` counts the aten operations a
solution dispatches, and work done in Python on values taken out of tensors dispatches none. So
the sealed observer also counts the values handed to Python (``tolist``, ``numpy``, ``item``,
``float``, ``len``, a tensor's text) while it counts, and the host fails the case when that count
grows with the input. In the real sandbox, on the ops fixture's ``distances_vectorised`` case: the
plain route (a loop over ``.tolist()``, which learners write by accident) and the sneakier ones."""

from __future__ import annotations

import pytest

from runner.engine import Runner
from runner.format.problem import ProblemFiles, load_problem_dir
from runner.jobs import Expectations
from tests.runner.conftest import FIXTURES

NO_LOOP = "Compute all the distances at once, without a Python loop over the points."

HEAD = """
import torch


def layer_norm(x, eps=1e-5):
    mean = x.mean(dim=-1, keepdim=True)
    var = x.var(dim=-1, unbiased=False, keepdim=True)
    return (x - mean) / torch.sqrt(var + eps)


def segment_sum(values, index, n):
    out = torch.zeros(n, dtype=values.dtype)
    return out.scatter_add_(0, index, values)


def _from_rows(rows):
    n = len(rows)
    return torch.tensor(
        [[sum((a - b) ** 2 for a, b in zip(rows[i], rows[j])) for j in range(n)] for i in range(n)]
    )
"""

ROUTES = {
    # the plain route: the points as nested lists, the distances in Python
    "tolist": "rows = p.tolist()",
    # one value at a time, each through .item()
    "item": "rows = [[p[i, k].item() for k in range(p.shape[1])] for i in range(p.shape[0])]",
    # float() on a one-element tensor, rows read with int indices
    "float": "rows = [[float(v) for v in p[i]] for i in range(p.shape[0])]",
    # through numpy, where the judge's count of operations never goes
    "numpy": "rows = p.numpy().tolist()",
    # through the tensor's text, parsed back
    "repr": (
        "import ast\n"
        "    text = repr(p.double()).partition('(')[2].rpartition(', dtype')[0]\n"
        "    rows = ast.literal_eval(text)"
    ),
}


@pytest.fixture(scope="module")
def ops_problem(runner: Runner) -> tuple[ProblemFiles, Expectations]:
    problem = load_problem_dir(FIXTURES / "ops")
    return problem, runner.compute_expectations(problem)


def _distances_case(runner: Runner, problem: tuple[ProblemFiles, Expectations], body: str) -> tuple[str, str]:
    files, expectations = problem
    code = HEAD + f"\n\ndef pairwise_sq(p):\n    {body}\n    return _from_rows(rows).to(p.dtype)\n"
    result = runner.judge(runner.job_for(files, expectations, code, "submit"))
    case = next(c for c in result.cases if c.name == "distances_vectorised")
    return case.status, case.message or ""


@pytest.mark.parametrize("route", sorted(ROUTES))
def test_work_done_in_python_on_the_values_fails_the_count(
    runner: Runner, ops_problem: tuple[ProblemFiles, Expectations], route: str
) -> None:
    status, message = _distances_case(runner, ops_problem, ROUTES[route])
    if route == "repr":  # torch's printing takes the judge's dispatch mode off: refused as such
        assert status == "error" and "judge" in message, (status, message)
        return
    assert status == "failed", (status, message)
    assert message.startswith(f"Breaks rule no-python-loop: {NO_LOOP}"), message
    assert "into Python" in message or "tensor operations at size" in message, message


def test_the_values_are_right_so_only_the_count_can_fail_them(
    runner: Runner, ops_problem: tuple[ProblemFiles, Expectations]
) -> None:
    # The same Python-side distances outside the count (the public example does not count):
    # the value is right, so the failures above come from the count, not from a wrong answer.
    files, expectations = ops_problem
    code = HEAD + "\n\ndef pairwise_sq(p):\n    rows = p.tolist()\n    return _from_rows(rows).to(p.dtype)\n"
    result = runner.judge(runner.job_for(files, expectations, code, "submit"))
    others = {c.name: c.status for c in result.cases if c.name != "distances_vectorised"}
    assert set(others.values()) == {"passed"}, others


def test_a_vectorised_solution_that_reads_one_scalar_still_passes(
    runner: Runner, ops_problem: tuple[ProblemFiles, Expectations]
) -> None:
    # A constant number of values taken out (a size read with .item(), a len()) does not grow.
    body = (
        "scale = torch.tensor(1.0).item()\n"
        "    _ = len(p)\n"
        "    d = (p[:, None, :] - p[None, :, :]).pow(2).sum(-1) * scale\n"
        "    rows = None"
    )
    files, expectations = ops_problem
    code = HEAD + f"\n\ndef pairwise_sq(p):\n    {body}\n    return d\n"
    result = runner.judge(runner.job_for(files, expectations, code, "submit"))
    statuses = {c.name: (c.status, c.message) for c in result.cases}
    assert all(s == "passed" for s, _ in statuses.values()), statuses


PADDED = {
    # one row per step, the loop padded to the larger size so both sizes run it 64 times
    "rows": (
        "n = p.shape[0]\n"
        "    out = torch.zeros(n, n, dtype=p.dtype)\n"
        "    for i in range(64):\n"
        "        j = min(i, n - 1)\n"
        "        out[j] = ((p[j] - p) ** 2).sum(-1)\n"
        "    return out"
    ),
    # the points in 16 fixed chunks, each chunk vectorised: fewer steps, still a loop
    "chunks": (
        "n = p.shape[0]\n"
        "    parts = []\n"
        "    for k in range(16):\n"
        "        lo, hi = min(n, k * n // 16), min(n, (k + 1) * n // 16)\n"
        "        parts.append(((p[lo:hi, None, :] - p[None, :, :]) ** 2).sum(-1))\n"
        "    return torch.cat(parts)"
    ),
}


@pytest.mark.parametrize("route", sorted(PADDED))
def test_a_loop_padded_to_a_fixed_trip_count_fails(
    runner: Runner, ops_problem: tuple[ProblemFiles, Expectations], route: str
) -> None:
    files, expectations = ops_problem
    code = HEAD + f"\n\ndef pairwise_sq(p):\n    {PADDED[route]}\n"
    result = runner.judge(runner.job_for(files, expectations, code, "submit"))
    cases = {c.name: (c.status, c.message or "") for c in result.cases}
    status, message = cases["distances_vectorised"]
    assert status == "failed", cases
    assert message.startswith(f"Breaks rule no-python-loop: {NO_LOOP}") and "padded" in message, message
    # its values are right: only the count fails it
    assert cases["example"][0] == "passed", cases
