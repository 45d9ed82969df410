"""The class "rebind an attribute of a module the judge relies on", in the real sandbox.

``check_gradients``, ``check_optimizer``, ``check_family`` and the problems' own counters are ordinary
Python that look names up in modules when they run (``torch.autograd.grad``, ``gradcheck``,
``functional_call``, ``functools``, ``math``, ``runner.testing``). Every plain module loaded by the
zygote is read-only to judged code (``runner.testing.frozen_modules``): each route below is refused
with ``TypeError`` whatever its spelling — first without the source policy (the runtime layer
alone), then the spellings that write a namespace as a dict, which the policy refuses by name.
"""

from __future__ import annotations

import pytest

from runner.engine import Runner
from runner.format.problem import load_problem_dir
from runner.verdict import Verdict
from tests.runner.checks_support import judge, solution
from tests.runner.conftest import BANK

PROBLEM = "swish-backward"
READ_ONLY = "read-only while your code runs"
CASE = "gradient_matches_finite_differences"

# A wrong backward (nothing flows back): the gradient check fails it, patched or not.
WRONG = (
    "import torch\n\n"
    "class Swish(torch.autograd.Function):\n"
    "    @staticmethod\n"
    "    def forward(ctx, x):\n"
    "        return x * torch.sigmoid(x)\n\n"
    "    @staticmethod\n"
    "    def backward(ctx, grad_output):\n"
    "        return grad_output\n\n"
    "def swish(x):\n"
    "    return Swish.apply(x)\n"
)

# Each one rebinds (or deletes) something a check looks up when it runs, so that a wrong backward
# would pass: the analytic gradient, gradcheck's verdict, the check itself, a helper under it.
ROUTES = {
    "an alias of torch.autograd": "m = torch.autograd\nm.grad = lambda *a, **k: None",
    "setattr with a written name": "setattr(torch.autograd, 'gradcheck', lambda *a, **k: True)",
    "a module kept in a list": "for m in [torch.func]:\n    m.functional_call = lambda *a, **k: None",
    "a module as a default argument": (
        "def patch(m=torch.autograd):\n    m.gradcheck = lambda *a, **k: True\npatch()"
    ),
    "delattr": "delattr(torch.autograd, 'grad')",
    "the judge's package": "import runner.testing as t\nt.check_gradients = lambda *a, **k: None",
    "the check's own module": (
        "import runner.testing.checks.gradients as g\ng.check_gradients = lambda *a, **k: None"
    ),
    "the check's helpers": "import runner.testing.checks.arguments as a\na.index_of = lambda *x: [0]",
    "functools": "import functools\nfunctools.partial = lambda *a, **k: None",
    "math": "import math\nmath.isclose = lambda *a, **k: True",
    "builtins": "import builtins\nbuiltins.all = lambda *a: True",
    "the problem's tests module": (
        "import sys\nsys.modules['torchdrill_tests'].check_gradients = lambda *a, **k: None"
    ),
}


def _patched(patch: str, body: str) -> str:
    """``body`` with ``patch`` run whenever ``swish`` is called (the public example calls it)."""
    indented = "\n".join("    " + line for line in patch.splitlines())
    return body.replace("def swish(x):\n", "def swish(x):\n" + indented + "\n")


def test_the_honest_solution_is_accepted(runner: Runner) -> None:
    """So the checks below can fail: the fixture accepts its reference."""
    assert judge(runner, PROBLEM, solution(PROBLEM)).accepted


@pytest.mark.parametrize("route", sorted(ROUTES))
def test_rebinding_a_module_the_judge_relies_on_is_refused(runner: Runner, route: str) -> None:
    result = judge(runner, PROBLEM, _patched(ROUTES[route], solution(PROBLEM)))
    example = next(c for c in result.cases if c.name == "example")
    assert example.status == "error", (example.status, example.message)
    assert "TypeError" in example.message and READ_ONLY in example.message, example.message
    assert not result.accepted


@pytest.mark.parametrize("route", sorted(ROUTES))
def test_a_wrong_backward_fails_whatever_it_rebinds_at_import(runner: Runner, route: str) -> None:
    """The patch at import, its refusal caught: the check runs as written and fails the backward."""
    indented = "\n".join("    " + line for line in ROUTES[route].splitlines())
    code = WRONG + "\ntry:\n" + indented + "\nexcept TypeError:\n    pass\n"
    result = judge(runner, PROBLEM, code)
    found = next(c for c in result.cases if c.name == CASE)
    assert found.status == "failed", (found.status, found.message)
    assert "backward returns the exact derivative" in found.message, found.message


def test_the_read_only_class_cannot_be_changed_or_taken_off(runner: Runner) -> None:
    """Its methods are fixed (an immutable type) and a module keeps it (the guard's audit hook)."""
    for patch, words in (
        ("type(torch.autograd).__setattr__ = object.__setattr__", "immutable type"),
        ("import types\ntorch.autograd.__class__ = types.ModuleType", READ_ONLY),
        (
            "import types\nobject.__setattr__(torch.autograd, '__class__', types.ModuleType)",
            "Modifying or inspecting the judge",
        ),
    ):
        result = judge(runner, PROBLEM, _patched(patch, solution(PROBLEM)))
        example = next(c for c in result.cases if c.name == "example")
        assert example.status in ("failed", "error"), (example.status, example.message)
        assert words in example.message, example.message
        assert not result.accepted


def test_ordinary_module_use_still_works(runner: Runner) -> None:
    """Reading and calling through the read-only modules is untouched; so is a learner's own module."""
    code = solution(PROBLEM).replace(
        "def swish(x):\n",
        "def swish(x):\n    import functools, math, sys\n"
        "    assert functools.reduce(lambda a, b: a + b, [1, 2]) == 3 and math.isclose(1.0, 1.0)\n"
        "    assert isinstance(torch.autograd, type(math)) and torch.autograd.grad is not None\n"
        "    sys.modules[__name__].helper = 1\n",
    )
    assert judge(runner, PROBLEM, code).accepted


# Spellings that write a module's namespace as a dict or put a module back: the runtime type cannot
# see them, so the source policy refuses each one by name before anything runs.
DICT_ROUTES = {
    "vars": "vars(torch.autograd)['grad'] = len",
    "__dict__": "torch.autograd.__dict__['grad'] = len",
    "object.__setattr__": "object.__setattr__(torch.autograd, 'grad', len)",
    "importlib.reload": "import importlib\nimportlib.reload(torch.autograd)",
    "sys.modules": "import sys\nsys.modules['torch.autograd'] = None",
    "__builtins__": "__builtins__['all'] = len",
    "__class__": "torch.autograd.__class__ = object",
    "__globals__": "torch.autograd.grad.__globals__['_engine_run_backward'] = len",
}


@pytest.mark.parametrize("route", sorted(DICT_ROUTES))
def test_namespace_writes_are_refused_by_the_source_policy(checked_runner: Runner, route: str) -> None:
    code = solution(PROBLEM) + "\n" + DICT_ROUTES[route] + "\n"
    result = judge(checked_runner, PROBLEM, code)
    assert result.verdict == Verdict.COMPILE_ERROR, result
    assert "not allowed" in result.message, result.message


# A problem's own counter (clip-gradients' tests.py wraps torch's clipping functions per case, from
# tests.py, which may): the learner puts the original back inside the case to go uncounted.
UNDO_THE_COUNTER = """import torch

SAVED = torch.nn.utils.clip_grad_norm_


def clip_grad_norm(parameters, max_norm):
    utils = torch.nn.utils
    utils.clip_grad_norm_ = SAVED  # the counter's wrapper taken off
    return utils.clip_grad_norm_(list(parameters), max_norm)


def clip_grad_value(parameters, clip_value):
    with torch.no_grad():
        for p in parameters:
            if p.grad is not None:
                p.grad.clamp_(-clip_value, clip_value)
"""


def test_a_problems_counter_cannot_be_taken_off(runner: Runner) -> None:
    problem = load_problem_dir(BANK / "clip-gradients")
    result = runner.judge(
        runner.job_for(problem, runner.compute_expectations(problem), UNDO_THE_COUNTER, "submit")
    )
    assert not result.accepted
    found = next(c for c in result.cases if c.name == "no_builtin_clipping")
    assert found.status == "error" and READ_ONLY in found.message, (found.status, found.message)
