"""forbid_ops, require_ops and assert_vectorised against the real sandbox.

For each helper: the fixture's reference passes, and a solution that breaks exactly that rule
fails with the documented message; then the ways a solution could switch the interception off.
"""

from __future__ import annotations

import textwrap

import pytest

from runner import jobs
from runner.engine import Runner
from runner.format.problem import ProblemFiles, load_problem_dir
from runner.jobs import Expectations
from runner.verdict import Verdict
from tests.runner.conftest import FIXTURES

NO_LAYER_NORM = "Do not call F.layer_norm: compute the mean and the variance yourself."
USE_SCATTER = "Sum the values of each segment with scatter_add_."
NO_LOOP = "Compute all the distances at once, without a Python loop over the points."
MODIFIED = "modifying or inspecting the judge is not allowed"


@pytest.fixture(scope="module")
def ops_problem(runner: Runner) -> tuple[ProblemFiles, Expectations]:
    problem = load_problem_dir(FIXTURES / "ops")
    return problem, runner.compute_expectations(problem)


def judge(runner: Runner, problem: tuple[ProblemFiles, Expectations], code: str) -> jobs.JudgeResult:
    files, expectations = problem
    return runner.judge(runner.job_for(files, expectations, code, "submit"))


def case(result: jobs.JudgeResult, name: str) -> jobs.CaseResult:
    return next(c for c in result.cases if c.name == name)


def replaced(problem: ProblemFiles, function: str, body: str) -> str:
    """The reference with ``function`` replaced by ``body`` (a whole ``def``)."""
    source = problem.solution
    start = source.index(f"def {function}(")
    end = source.find("\ndef ", start + 1)
    end = len(source) if end < 0 else end + 1
    return source[:start] + textwrap.dedent(body).strip() + "\n\n" + source[end:]


def test_the_reference_declares_its_checks(ops_problem: tuple[ProblemFiles, Expectations]) -> None:
    observed = {c.name: c.observed for c in ops_problem[1].cases}
    assert observed["example"] is None
    assert observed["uses_scatter_add"] == {"checks": [["require", "aten.scatter_add_", USE_SCATTER]]}
    assert observed["distances_vectorised"]["checks"] == [["vectorised", NO_LOOP, "8,64"]]
    small, large = observed["distances_vectorised"]["op_counts"]  # the reference's, for padded loops
    assert 0 < small <= large


def test_the_reference_is_accepted(runner: Runner, ops_problem: tuple[ProblemFiles, Expectations]) -> None:
    result = judge(runner, ops_problem, ops_problem[0].solution)
    assert result.verdict == Verdict.ACCEPTED, [c.message for c in result.cases]


# --- forbid_ops ----------------------------------------------------------------------------------


def test_a_forbidden_call_fails_with_the_constraint_the_call_and_its_line(
    runner: Runner, ops_problem: tuple[ProblemFiles, Expectations]
) -> None:
    code = "import torch.nn.functional as F\n" + replaced(
        ops_problem[0],
        "layer_norm",
        """
        def layer_norm(x, eps=1e-5):
            return F.layer_norm(x, x.shape[-1:], eps=eps)
        """,
    )
    line = code.splitlines().index("    return F.layer_norm(x, x.shape[-1:], eps=eps)") + 1
    result = judge(runner, ops_problem, code)
    assert result.verdict == Verdict.WRONG_ANSWER
    failed = case(result, "no_builtin_layer_norm")
    assert failed.status == jobs.CASE_FAILED
    assert failed.message == (
        f"Operations: {NO_LAYER_NORM} The judge saw your code call torch.nn.functional.layer_norm "
        f"(solution.py, line {line})."
    )
    assert case(result, "example").status == jobs.CASE_PASSED  # the value itself is right


@pytest.mark.parametrize(
    "route",
    [
        "torch.ops.aten.native_layer_norm(x, x.shape[-1:], None, None, eps)[0]",
        "torch.layer_norm(x, x.shape[-1:], eps=eps)",
        "torch.native_layer_norm(x, x.shape[-1:], None, None, eps)[0]",
        "torch._C._VariableFunctions.layer_norm(x, x.shape[-1:], None, None, eps, False)",
    ],
)
def test_other_routes_to_the_forbidden_operation_are_seen(
    runner: Runner, ops_problem: tuple[ProblemFiles, Expectations], route: str
) -> None:
    code = replaced(ops_problem[0], "layer_norm", f"def layer_norm(x, eps=1e-5):\n    return {route}\n")
    result = judge(runner, ops_problem, code)
    assert result.verdict == Verdict.WRONG_ANSWER
    assert (
        "The judge saw your code call aten.native_layer_norm" in case(result, "no_builtin_layer_norm").message
    )


def test_disabling_torch_function_still_meets_the_aten_check(
    runner: Runner, ops_problem: tuple[ProblemFiles, Expectations]
) -> None:
    body = """
        def layer_norm(x, eps=1e-5):
            import torch.nn.functional as F
            with torch._C.DisableTorchFunction():
                return F.layer_norm(x, x.shape[-1:], eps=eps)
    """
    result = judge(runner, ops_problem, replaced(ops_problem[0], "layer_norm", body))
    assert result.verdict != Verdict.ACCEPTED
    assert case(result, "no_builtin_layer_norm").status in (jobs.CASE_FAILED, jobs.CASE_ERROR)


# --- require_ops -------------------------------------------------------------------------------


def test_a_required_operation_not_used_fails_with_the_constraint(
    runner: Runner, ops_problem: tuple[ProblemFiles, Expectations]
) -> None:
    body = """
        def segment_sum(values, index, n):
            return torch.zeros(n, dtype=values.dtype).index_add_(0, index, values)
    """
    result = judge(runner, ops_problem, replaced(ops_problem[0], "segment_sum", body))
    assert result.verdict == Verdict.WRONG_ANSWER
    failed = case(result, "uses_scatter_add")
    assert failed.status == jobs.CASE_FAILED
    assert (
        failed.message == f"Operations: {USE_SCATTER} The judge did not see your code call aten.scatter_add_."
    )


# --- assert_vectorised -----------------------------------------------------------------------------


def test_a_python_loop_over_the_points_fails_with_both_counts(
    runner: Runner, ops_problem: tuple[ProblemFiles, Expectations]
) -> None:
    body = """
        def pairwise_sq(points):
            rows = [((points - p) ** 2).sum(dim=1) for p in points]
            return torch.stack(rows)
    """
    result = judge(runner, ops_problem, replaced(ops_problem[0], "pairwise_sq", body))
    assert result.verdict == Verdict.WRONG_ANSWER
    failed = case(result, "distances_vectorised")
    assert failed.status == jobs.CASE_FAILED
    assert failed.message.startswith(f"Operations: {NO_LOOP} The judge counted ")
    assert " tensor operations at size 8 and " in failed.message
    assert (
        "at size 64: the work grows with the input, as with a Python loop over its elements."
        in failed.message
    )


# --- switching the interception off ----------------------------------------------------------------

ATTEMPTS = {
    "pop_the_dispatch_mode": """
        def layer_norm(x, eps=1e-5):
            import torch.nn.functional as F
            mode = torch._C._pop_torch_dispatch_stack(None)
            try:
                return F.layer_norm(x, x.shape[-1:], eps=eps)
            finally:
                torch._C._push_on_torch_dispatch_stack(mode)
    """,
    "exclude_the_python_dispatch_key": """
        def layer_norm(x, eps=1e-5):
            keys = torch._C.DispatchKeySet(torch._C.DispatchKey.Python)
            with torch._C._ExcludeDispatchKeyGuard(keys):
                return torch.ops.aten.native_layer_norm(x, x.shape[-1:], None, None, eps)[0]
    """,
    "swap_the_mode_handler": """
        def layer_norm(x, eps=1e-5):
            import torch.nn.functional as F
            mode = torch._C._get_dispatch_stack_at(0)
            type(mode).__torch_dispatch__ = lambda self, func, types, args=(), kwargs=None: func(*args)
            return F.layer_norm(x, x.shape[-1:], eps=eps)
    """,
    "pop_the_function_mode": """
        def layer_norm(x, eps=1e-5):
            import torch.nn.functional as F
            mode = torch._C._pop_torch_function_stack()
            try:
                return F.layer_norm(x, x.shape[-1:], eps=eps)
            finally:
                torch._C._push_on_torch_function_stack(mode)
    """,
    "shadow_the_handler_on_the_instance": """
        def layer_norm(x, eps=1e-5):
            import torch.nn.functional as F
            mode = torch._C._get_dispatch_stack_at(0)
            object.__setattr__(mode, "__torch_dispatch__", lambda *a, **k: None)
            mode.__dict__["__torch_dispatch__"] = lambda func, types, args=(), kwargs=None: func(*args)
            return F.layer_norm(x, x.shape[-1:], eps=eps)
    """,
    "a_subclass_that_disables_torch_function": """
        def layer_norm(x, eps=1e-5):
            import torch.nn.functional as F
            class Plain(torch.Tensor):
                __torch_function__ = torch._C._disabled_torch_function_impl
            return F.layer_norm(x.as_subclass(Plain), x.shape[-1:], eps=eps).as_subclass(torch.Tensor)
    """,
    "change_the_mode_class": """
        def layer_norm(x, eps=1e-5):
            import torch.nn.functional as F
            from torch.utils._python_dispatch import TorchDispatchMode
            class Quiet(TorchDispatchMode):
                def __torch_dispatch__(self, func, types, args=(), kwargs=None):
                    return func(*args, **(kwargs or {}))
            torch._C._get_dispatch_stack_at(0).__class__ = Quiet
            return F.layer_norm(x, x.shape[-1:], eps=eps)
    """,
}


@pytest.mark.parametrize("name", sorted(ATTEMPTS))
def test_switching_the_interception_off_is_not_a_pass(
    runner: Runner, ops_problem: tuple[ProblemFiles, Expectations], name: str
) -> None:
    result = judge(runner, ops_problem, replaced(ops_problem[0], "layer_norm", ATTEMPTS[name]))
    assert result.verdict != Verdict.ACCEPTED
    target = case(result, "no_builtin_layer_norm")
    assert target.status in (jobs.CASE_FAILED, jobs.CASE_ERROR)
    refused = (MODIFIED, "the judge saw your code call", "attribute of immutable type 'judgedispatchwatch'")
    assert any(text in target.message.lower() for text in refused), target.message


def test_replacing_the_check_in_the_tests_globals_is_refused(
    runner: Runner, ops_problem: tuple[ProblemFiles, Expectations]
) -> None:
    prefix = textwrap.dedent("""
        import contextlib, sys
        @contextlib.contextmanager
        def quiet(rules):
            yield
        sys.modules["torchdrill_tests"].forbid_ops = quiet
        sys.modules["torchdrill_tests"].require_ops = quiet
        sys.modules["torchdrill_tests"].assert_vectorised = lambda fn, make, **kw: fn(make(64))
        import torch.nn.functional as F
    """)
    code = prefix + replaced(
        ops_problem[0],
        "layer_norm",
        "def layer_norm(x, eps=1e-5):\n    return F.layer_norm(x, x.shape[-1:], eps=eps)\n",
    )
    result = judge(runner, ops_problem, code)
    assert result.verdict == Verdict.RUNTIME_ERROR
    for name in ("no_builtin_layer_norm", "uses_scatter_add", "distances_vectorised"):
        assert MODIFIED in case(result, name).message.lower()
