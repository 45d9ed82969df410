"""torch's mutable classes cannot be rebound by judged code, whatever the spelling, in the real sandbox.

Each attempt patches a class a check or a problem's tests rely on — ``nn.Module``,
``torch.optim.Optimizer`` and torch's optimizers, ``torch.autograd.Function`` and torch's autograd
functions, ``torch.Tensor`` — through a route the source policy cannot always name (a class reached
through a value, an alias, ``setattr`` with a written name), then returns the probe's right answer.
Judged without the policy, so the run-time layer (``runner.testing.frozen_classes``, the guard's
tensor classes, read-only modules for ``torch.nn.functional``) is what stops it: never accepted. The
judge's writer for ``tests.py`` refuses the learner's frames. The bank's tests that wrap these
classes' methods (freeze-backbone, per-layer-lr, …) validate in ``tests/runner/format/test_bank.py``.
"""

from __future__ import annotations

import dataclasses

import pytest

from runner.engine import Runner
from runner.format.problem import ProblemFiles
from runner.jobs import ExpectationError, Expectations
from runner.verdict import Verdict
from tests.runner.conftest import JudgeFn

PATCHES = {
    "nn.Module.__call__ through type()": (
        "import torch\ntype(torch.nn.Linear(1, 1)).__mro__[1].__call__ = print"
    ),
    "nn.Module through an alias": "import torch.nn as nn\nM = nn.Module\nM.register_forward_hook = print",
    "nn.Module by setattr": "import torch\nsetattr(torch.nn.Module, 'zero_grad', print)",
    "Optimizer.zero_grad": "import torch\ntorch.optim.Optimizer.zero_grad = print",
    "an optimizer through a value": (
        "import torch\nopt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=0.1)\n"
        "type(opt).step = print"
    ),
    "torch.optim.Adam.step": "import torch\ntorch.optim.Adam.step = print",
    "autograd.Function.apply": "import torch\ntorch.autograd.Function.apply = print",
    "Tensor.clone": "import torch\ntorch.Tensor.clone = print",
    "a name of torch.nn.functional": "import torch.nn.functional as F\nF.relu = print",
    "the tests' writer, from the learner": (
        "import torch\nfrom runner.testing import set_class_attribute\n"
        "set_class_attribute(torch.nn.Module, 'zero_grad', print)"
    ),
    "deleting a method": "import torch\ndel torch.optim.Optimizer.zero_grad",
    # nn.Module's hook methods are held in slots (runner.testing.method_slots): the slot's descriptor
    # class is immutable, and its writer is the tests' one
    "a hook method's slot, its getter replaced": (
        "import torch\ntype(torch.nn.Module.__dict__['register_forward_hook']).__get__ = print"
    ),
    "a hook method's slot, through the tests' writer": (
        "import torch\nfrom runner.testing import set_class_attribute\n"
        "set_class_attribute(torch.nn.Module, 'register_forward_hook', print)"
    ),
}


@pytest.mark.parametrize("route", sorted(PATCHES))
def test_torchs_classes_cannot_be_rebound(judge_probe: JudgeFn, route: str) -> None:
    # a generous wall limit: the machine is shared, and a limit is not what this test is about
    result = judge_probe(PATCHES[route] + "\n\n\ndef probe():\n    return 0\n", mode="submit", time_s=30)
    assert result.verdict == Verdict.RUNTIME_ERROR, (route, result.verdict, result.message)
    message = result.cases[0].message
    assert any(w in message for w in ("immutable type", "read-only", "only the problem's tests")), message


def test_a_learners_own_subclass_stays_theirs(judge_probe: JudgeFn) -> None:
    code = (
        "import torch\n\n\nclass Mine(torch.nn.Module):\n    pass\n\n\n"
        "Mine.forward = lambda self: 0\n\n\ndef probe():\n    return Mine()()\n"
    )
    assert judge_probe(code, mode="submit").verdict == Verdict.ACCEPTED


# What a problem's tests.py may write as it loads, before the guard is in force: torch's optimizer,
# autograd-function and tensor classes are read-only from the zygote on (so no job writes their type
# objects), and tests.py writes them through set_class_attribute; nn.Module stays writable until the
# guard comes in, since tests.py may still replace one of its hook methods (the guard wraps theirs).
TOP_LEVEL_TESTS = """
import torch
from runner.testing import case, set_class_attribute

{write}


@case(public=True)
def first(solution):
    return solution.probe()
"""
TOP_LEVEL_WRITES = {
    "torch.optim.SGD.step": ("torch.optim.SGD.step = torch.optim.SGD.step", "immutable type 'SGD'"),
    "torch.autograd.Function.apply": (
        "torch.autograd.Function.apply = torch.autograd.Function.apply",
        "immutable type 'Function'",
    ),
    "torch.Tensor.clone": ("torch.Tensor.clone = torch.Tensor.clone", "immutable type"),
    "through the tests' writer": ('set_class_attribute(torch.optim.SGD, "step", torch.optim.SGD.step)', None),
    "nn.Module's hook method": (
        "original = torch.nn.Module.register_forward_hook\n"
        "torch.nn.Module.register_forward_hook = lambda m, *a, **k: original(m, *a, **k)",
        None,
    ),
}


@pytest.mark.parametrize("write", sorted(TOP_LEVEL_WRITES))
def test_what_tests_py_may_write_as_it_loads(
    runner: Runner, probe: tuple[ProblemFiles, Expectations], write: str
) -> None:
    line, refusal = TOP_LEVEL_WRITES[write]
    problem = dataclasses.replace(probe[0], slug="top-level-writes", tests=TOP_LEVEL_TESTS.format(write=line))
    if refusal is None:
        expectations = runner.compute_expectations(problem)
        result = runner.judge(runner.job_for(problem, expectations, problem.solution, "submit"))
        assert result.verdict == Verdict.ACCEPTED, (write, result.message)
    else:
        with pytest.raises(ExpectationError, match=refusal):
            runner.compute_expectations(problem)
