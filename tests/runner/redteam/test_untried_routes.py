"""Routes the red team had not tried, in the real sandbox: each is refused with a message or shown
harmless to the check it targets.

* Modify-and-restore below the version counter (``.data``'s siblings: ``set_``, storages, numpy
  views, DLPack, ``__array_interface__``): the source policy refuses each route by name; the one that
  shares the counter (``detach()``) is caught at run time by the version-counter case.
* Extension points that run code outside the observed call or replace what torch does
  (``torch.library``, ``torch.compile``, signals, ``atexit``, tracing, finalizers, import hooks,
  ``warnings``, class hooks, ``__torch_function__`` on any class, pushed modes, ``gc``): refused by
  the policy before anything runs.
* ``torch.func`` (``vmap``, ``grad``, ``functional_call``): allowed, and harmless — the forbidden
  operation is still seen under each transform.
"""

from __future__ import annotations

import pytest

from runner.engine import Runner
from runner.format.problem import load_problem_dir
from runner.jobs import JudgeResult
from runner.verdict import Verdict
from tests.runner.checks_support import judge
from tests.runner.conftest import FIXTURES

CENTER = "center-rows"


def _center_rows(body: str) -> str:
    return "import torch\n\n\ndef center_rows(x):\n" + "".join(f"    {line}\n" for line in body.splitlines())


# Each one works in the caller's `x` and puts the bytes back before returning.
BELOW_THE_COUNTER = {
    "numpy view": "a = x.numpy()\nsaved = a.copy()\na -= a.mean(axis=1, keepdims=True)\n"
    "out = torch.tensor(a)\na[...] = saved\nreturn out",
    "untyped storage": "s = x.untyped_storage()\nsaved = bytes(s)\nout = x - x.mean(dim=1, keepdim=True)\n"
    "return out",
    "set_": "saved = x.clone()\nx.set_(x - x.mean(dim=1, keepdim=True))\nout = x.clone()\nx.set_(saved)\n"
    "return out",
    "DLPack": "y = torch.from_dlpack(x)\nsaved = y.clone()\ny.sub_(y.mean(dim=1, keepdim=True))\n"
    "out = y.clone()\ny.copy_(saved)\nreturn out",
    "torch.utils.dlpack": (
        "import torch.utils.dlpack as d\ny = d.from_dlpack(d.to_dlpack(x))\nreturn y - y.mean(1, True)"
    ),
    "__array_interface__": "info = x.__array_interface__\nreturn x - x.mean(dim=1, keepdim=True)",
    "storage": "s = x.storage()\nreturn x - x.mean(dim=1, keepdim=True)",
    "data_ptr": "p = x.data_ptr()\nreturn x - x.mean(dim=1, keepdim=True)",
}


@pytest.mark.parametrize("route", sorted(BELOW_THE_COUNTER))
def test_writes_below_the_version_counter_are_refused_by_the_policy(
    checked_runner: Runner, route: str
) -> None:
    result = judge(checked_runner, CENTER, _center_rows(BELOW_THE_COUNTER[route]))
    assert result.verdict == Verdict.COMPILE_ERROR, result
    assert "not allowed" in result.message, result.message


def test_numpy_views_are_allowed_where_the_problem_allows_numpy() -> None:
    """The refusal follows the problem's allowance, like `import numpy` does."""
    from runner.judging.source_policy import check

    code = _center_rows(BELOW_THE_COUNTER["numpy view"])
    assert check(code) is not None
    assert check(code, ["numpy"]) is None


def test_a_write_through_a_detached_alias_is_caught_by_the_version_counter(runner: Runner) -> None:
    """`detach()` shares the version counter: modify-and-restore through it is seen at run time."""
    body = (
        "d = x.detach()\nsaved = d.clone()\nd.sub_(d.mean(dim=1, keepdim=True))\n"
        "out = d.clone()\nd.copy_(saved)\nreturn out"
    )
    result = judge(runner, CENTER, _center_rows(body))
    assert not result.accepted
    failed = {c.name: c.message for c in result.cases if c.status == "failed"}
    assert "input_never_written" in failed and "input-not-modified" in failed["input_never_written"], failed


# Extension points: each refused before anything runs, with the reason the learner reads.
EXTENSION_POINTS = {
    "torch.library kernel": "import torch\nlib = torch.library.Library('aten', 'IMPL')",
    "torch.compile": "import torch\ncenter = torch.compile(lambda x: x)",
    "torch._dynamo": "import torch\ntorch._dynamo.reset()",
    "signal.signal": "import signal\nsignal.signal(signal.SIGALRM, lambda *a: None)",
    "signal.setitimer": "import signal\nsignal.setitimer(signal.ITIMER_REAL, 0.01)",
    "atexit": "import atexit\natexit.register(print)",
    "sys.settrace": "import sys\nsys.settrace(lambda *a: None)",
    "sys.setprofile": "import sys\nsys.setprofile(lambda *a: None)",
    "weakref.finalize": "import weakref\nweakref.finalize(torch, print)",
    "sys.meta_path": "import sys\nsys.meta_path.insert(0, None)",
    "warnings filters": "import warnings\nwarnings.simplefilter('ignore')",
    "__init_subclass__": "class Base:\n    def __init_subclass__(cls):\n        pass",
    "__torch_function__ on a plain class": (
        "class Fake:\n    @classmethod\n"
        "    def __torch_function__(cls, f, t, a=(), k=None):\n        return 0"
    ),
    "__torch_function__ set on a class": "class Fake:\n    pass\nsetattr(Fake, '__torch_function__', 0)",
    "a pushed TorchFunctionMode": (
        "from torch.overrides import TorchFunctionMode\nTorchFunctionMode().__enter__()"
    ),
    "a pushed dispatch mode": "from torch.utils._python_dispatch import TorchDispatchMode",
    "gc.get_objects": "import gc\njudge = gc.get_objects()",
}


@pytest.mark.parametrize("route", sorted(EXTENSION_POINTS))
def test_extension_points_are_refused_before_anything_runs(checked_runner: Runner, route: str) -> None:
    code = (
        "import torch\n"
        + EXTENSION_POINTS[route]
        + "\n\n\n"
        + _center_rows("return x - x.mean(dim=1, keepdim=True)")
    )
    result = judge(checked_runner, CENTER, code)
    assert result.verdict == Verdict.COMPILE_ERROR, result
    assert "not allowed" in result.message, result.message


def test_the_honest_solution_passes_the_policy(checked_runner: Runner) -> None:
    """So the refusals above can fail: the same file without the route is accepted."""
    result = judge(checked_runner, CENTER, _center_rows("return x - x.mean(dim=1, keepdim=True)"))
    assert result.accepted, result


# torch.func's transforms run the forbidden operation through the same dispatcher the judge watches.
FUNC_ROUTES = {
    "vmap": "torch.func.vmap(lambda r: F.layer_norm(r, r.shape[-1:], eps=eps))(x)",
    "grad's auxiliary output": (
        "torch.func.grad(lambda t: (F.layer_norm(t, t.shape[-1:], eps=eps).sum(), "
        "F.layer_norm(t, t.shape[-1:], eps=eps)), has_aux=True)(x)[1]"
    ),
    "functional_call": (
        "torch.func.functional_call(torch.nn.LayerNorm(x.shape[-1], eps=eps, elementwise_affine=False), "
        "{}, (x,))"
    ),
}


def _ops_judge(runner: Runner, code: str) -> JudgeResult:
    problem = load_problem_dir(FIXTURES / "ops")
    return runner.judge(runner.job_for(problem, runner.compute_expectations(problem), code, "submit"))


@pytest.mark.parametrize("route", sorted(FUNC_ROUTES))
def test_torch_func_transforms_do_not_hide_a_forbidden_operation(checked_runner: Runner, route: str) -> None:
    problem = load_problem_dir(FIXTURES / "ops")
    source = problem.solution
    start = source.index("def layer_norm(")
    end = source.index("\ndef ", start + 1)
    body = f"def layer_norm(x, eps=1e-5):\n    return {FUNC_ROUTES[route]}\n"
    code = "import torch.nn.functional as F\n" + source[:start] + body + source[end:]
    result = _ops_judge(checked_runner, code)
    assert result.verdict == Verdict.WRONG_ANSWER, result
    found = next(c for c in result.cases if c.name == "no_builtin_layer_norm")
    assert "The judge saw your code call" in found.message and "layer_norm" in found.message, found.message
