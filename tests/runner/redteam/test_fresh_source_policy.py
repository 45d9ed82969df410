"""Source-policy blind spots no earlier file named, in the real sandbox (``checked_runner``, as
production judges). Each attempt was let through before: it is now refused before anything runs,
with the line and a reason, and the honest code beside it still passes.

* Saved-tensor hooks and selective checkpointing: the checkpointing problem measures what autograd
  keeps with ``saved_tensors_hooks``; identity hooks pushed by the solution are innermost and win,
  so a plain forward (with re-runs for show during backward) was ``accepted`` with every activation
  kept. Selective checkpointing (``MUST_SAVE``) keeps them the same way.
* Modules another module imported, reached as its attributes (``torch.storage.np`` is numpy,
  ``torch.autograd.graph.logging``, ``torch.utils.checkpoint.warnings``, ``dataclasses.re``): every
  module the import allow-list refuses was one attribute away.
* ``setattr``/``delattr`` with a written name on a named path: the patch ``path.name = …`` is
  refused, its spelling through the builtin was not.
* String annotations: ``functools.singledispatch``'s ``register`` evaluates them as code
  (``typing.get_type_hints``), a string the walk cannot read.
* Attributes named in strings inside the allowed modules: ``functools.update_wrapper`` (and
  ``wraps``'s ``assigned``/``updated``) read and write any attribute, and a ``__setattr__`` of the
  solution's own hands the value back — ``f.__globals__``, then ``__builtins__``, ``sys.modules`` and
  the hidden tests' namespace: rebinding their memory measurement was ``accepted``.
* ``copy.deepcopy``'s memo keeps the original of everything copied (``memo[id(memo)]``): a module's
  real ``_parameters`` and hook tables, a plain object's ``__dict__``, read without writing a name.
"""

from __future__ import annotations

import textwrap

import pytest

from runner.engine import Runner
from runner.format.problem import ProblemFiles, load_problem_dir
from runner.jobs import Expectations, JudgeResult
from runner.verdict import Verdict
from tests.runner.conftest import BANK, JudgeFn

CHECKPOINTING = BANK / "manual-activation-checkpointing"


@pytest.fixture(scope="module")
def checkpointing(runner: Runner) -> tuple[ProblemFiles, Expectations]:
    problem = load_problem_dir(CHECKPOINTING)
    return problem, runner.compute_expectations(problem)


def _judge(runner: Runner, problem: tuple[ProblemFiles, Expectations], code: str) -> JudgeResult:
    files, expectations = problem
    return runner.judge(runner.job_for(files, expectations, code, "submit"))


PLAIN_FORWARD = """
def _plain(blocks, x, segment_size):
    # Every activation kept; each segment re-run during backward so the call log looks checkpointed.
    h = x
    for start in range(0, len(blocks), segment_size):
        segment = list(blocks[start : start + segment_size])
        seg_input = h.detach()
        for block in segment:
            h = block(h)
        if h.requires_grad:

            def rerun(grad, segment=segment, seg_input=seg_input):
                with torch.no_grad():
                    r = seg_input
                    for block in segment:
                        r = block(r)
                return grad

            h.register_hook(rerun)
    return h
"""

HIDDEN_ACTIVATIONS = {
    "identity saved_tensors_hooks": (
        "def checkpointed_forward(blocks, x, segment_size):\n"
        "    with torch.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t):\n"
        "        return _plain(blocks, x, segment_size)\n"
    ),
    "save_on_cpu (the same hooks under another name)": (
        "from torch.autograd.graph import save_on_cpu\n\n"
        "def checkpointed_forward(blocks, x, segment_size):\n"
        "    with save_on_cpu():\n"
        "        return _plain(blocks, x, segment_size)\n"
    ),
    "selective checkpointing that saves every float32 activation": (
        "import functools\n"
        "import torch.utils.checkpoint as ckpt\n\n"
        "def _run(segment, h):\n"
        "    for block in segment:\n"
        "        h = block(h)\n"
        "    return h\n\n"
        "def policy(ctx, op, *args, **kwargs):  # keep float32 activations; float64 (gradcheck) recomputes\n"
        "    first = args[0] if args else None\n"
        "    if isinstance(first, torch.Tensor) and first.dtype == torch.float32:\n"
        "        return ckpt.CheckpointPolicy.MUST_SAVE\n"
        "    return ckpt.CheckpointPolicy.PREFER_RECOMPUTE\n\n"
        "def checkpointed_forward(blocks, x, segment_size):\n"
        "    h = x\n"
        "    for start in range(0, len(blocks), segment_size):\n"
        "        segment = list(blocks[start : start + segment_size])\n"
        "        h = ckpt.checkpoint(functools.partial(_run, segment), h, use_reentrant=False,\n"
        "            context_fn=lambda: ckpt.create_selective_checkpoint_contexts(policy))\n"
        "    return h\n"
    ),
}


@pytest.mark.parametrize("route", sorted(HIDDEN_ACTIVATIONS))
def test_activations_hidden_from_the_memory_measurement_are_refused(
    checked_runner: Runner, checkpointing: tuple[ProblemFiles, Expectations], route: str
) -> None:
    code = "import torch\n" + PLAIN_FORWARD + "\n\n" + HIDDEN_ACTIVATIONS[route]
    result = _judge(checked_runner, checkpointing, code)
    assert result.verdict == Verdict.COMPILE_ERROR, (route, result.verdict, result.message)
    assert "not allowed" in result.message and "Line" in result.message, result.message


def test_the_reference_and_torch_checkpoint_still_pass(
    checked_runner: Runner, checkpointing: tuple[ProblemFiles, Expectations]
) -> None:
    """So the refusals above can fail: the reference and `torch.utils.checkpoint` are accepted."""
    files, _ = checkpointing
    assert _judge(checked_runner, checkpointing, files.solution).accepted
    library = (
        "import functools\nimport torch\nfrom torch.utils.checkpoint import checkpoint\n\n"
        "def _run(segment, h):\n    for block in segment:\n        h = block(h)\n    return h\n\n"
        "def checkpointed_forward(blocks, x, segment_size):\n    h = x\n"
        "    for start in range(0, len(blocks), segment_size):\n"
        "        h = checkpoint(functools.partial(_run, list(blocks[start : start + segment_size])), h,\n"
        "                       use_reentrant=False)\n"
        "    return h\n"
    )
    result = _judge(checked_runner, checkpointing, library)
    assert result.accepted, [(c.name, c.status, c.message) for c in result.cases]


def test_the_measurement_rebound_through_string_named_attributes_is_refused(
    checked_runner: Runner, checkpointing: tuple[ProblemFiles, Expectations]
) -> None:
    code = (CHECKPOINTING / "mutants" / "cheat_rebinds_the_measurement.py").read_text()
    result = _judge(checked_runner, checkpointing, code)
    assert result.verdict == Verdict.COMPILE_ERROR, (result.verdict, result.message)
    assert "`__setattr__` is not allowed" in result.message, result.message


# Each returns a wrong value for the probe (its reference returns 0), so only a refusal or a
# failure can follow; the routes run at import.
ROUTES = {
    "numpy re-exported by torch.storage": "import torch\nA = torch.storage.np.asarray",
    "numpy imported from torch.amp.autocast_mode": "from torch.amp.autocast_mode import np",
    "logging through torch.autograd.graph": "import torch\ntorch.autograd.graph.logging.disable(50)",
    "warnings through torch.utils.checkpoint": (
        "from torch.utils.checkpoint import warnings\nwarnings.simplefilter('ignore')"
    ),
    "copyreg through torch.utils": "import torch.utils\ntorch.utils.copyreg.dispatch_table.clear()",
    "shutil through torch.cuda.tunable": "import torch\ntorch.cuda.tunable.shutil.rmtree('/tmp')",
    "re through dataclasses": "import dataclasses\nP = dataclasses.re.compile('x')",
    "multiprocessing through the DataLoader": (
        "import torch.utils.data.dataloader as d\nQ = d.python_multiprocessing.Queue"
    ),
    "setattr on a torch module": "import torch\nsetattr(torch.nn.functional, 'relu', abs)",
    "setattr on a torch class": "import torch.nn as nn\nsetattr(nn.Linear, 'forward', lambda self, x: x)",
    "delattr on a torch module": "import torch\ndelattr(torch.nn.functional, 'relu')",
    "singledispatch evaluating a string annotation": (
        "import functools\n\n@functools.singledispatch\ndef f(x):\n    return 1\n\n"
        "@f.register\ndef _(x: \"print('evaluated') or int\"):\n    return 1"
    ),
    "a string inside a subscripted annotation": "def g(x: list['print(1) or int']) -> None:\n    pass",
    "a string return annotation": "def g(x) -> 'print(1) or int':\n    pass",
    "a string annotation on a name": "y: 'print(1) or int' = 1",
    "update_wrapper reading __globals__": (
        "import functools\n\nclass Box:\n    pass\n\nB = Box()\n"
        "functools.update_wrapper(B, functools.reduce, assigned=('__globals__',), updated=())"
    ),
    "update_wrapper imported under another name": "from functools import update_wrapper as copy_names",
    "wraps with string lists": (
        "import functools\n\nclass Box:\n    pass\n\n"
        "functools.wraps(print, assigned=('__self__',), updated=())(Box())"
    ),
    "wraps with positional string lists": (
        "from functools import wraps\n\nclass Box:\n    pass\n\nwraps(print, ('__self__',), ())(Box())"
    ),
    "wraps kept as a value": "import functools\n\nW = functools.wraps",
    "a __setattr__ that receives values": (
        "class Grab:\n    def __setattr__(self, name, value):\n        pass"
    ),
    "deepcopy's memo": (
        "import copy\nimport torch\n\nmemo = {}\ncopy.deepcopy(torch.nn.Linear(2, 2), memo)\n"
        "TABLES = [o for o in memo[id(memo)] if isinstance(o, dict)]"
    ),
    "deepcopy's memo by keyword": "from copy import deepcopy\n\nM = {}\ndeepcopy([0], memo=M)",
    "deepcopy kept as a value": "import copy\n\nCOPY = [copy.deepcopy]",
    "a __deepcopy__ that receives the memo": (
        "class Spy:\n    def __deepcopy__(self, memo):\n        return self"
    ),
    "a property that states a memory address": (
        "class Raw:\n    @property\n    def __cuda_array_interface__(self):\n"
        "        return {'data': (0, False), 'shape': (8,), 'typestr': '|u1', 'version': 3}"
    ),
    "an object that exports DLPack": (
        "class Raw:\n    def __dlpack__(self, stream=None):\n        return None"
    ),
    "a descriptor's __set__": "class Slot:\n    def __set__(self, obj, value):\n        pass",
}


@pytest.mark.parametrize("route", sorted(ROUTES))
def test_routes_the_policy_did_not_read_are_refused(judge_probe_checked: JudgeFn, route: str) -> None:
    code = ROUTES[route] + "\n\n\ndef probe():\n    return 1\n"
    result = judge_probe_checked(code)
    assert result.verdict == Verdict.COMPILE_ERROR, (route, result.verdict, result.message)
    assert "not allowed" in result.message, (route, result.message)


HONEST = {
    "expression annotations": (
        "from __future__ import annotations\nimport torch\n\n"
        "def probe(x: torch.Tensor | None = None) -> int:\n    y: list[int] = [0]\n    return y[0]"
    ),
    "singledispatch on written types": (
        "import functools\n\n@functools.singledispatch\ndef f(x):\n    return 1\n\n"
        "@f.register\ndef _(x: int):\n    return 0\n\ndef probe():\n    return f(3)"
    ),
    "torch functions named like standard modules": (
        "import torch\n\ndef probe():\n    x = torch.eye(2)\n"
        "    return int(torch.trace(x) - 2 + torch.select(x, 0, 0)[1] + torch.chunk(x, 2)[0].sum() - 1)"
    ),
    "a decorator with functools.wraps": (
        "import functools\n\ndef logged(f):\n    @functools.wraps(f)\n    def inner(*args):\n"
        "        return f(*args)\n\n    return inner\n\n@logged\ndef probe():\n    return 0"
    ),
    "a plain deepcopy": "import copy\n\ndef probe():\n    return copy.deepcopy([0])[0]",
    "setattr on the solution's own object": (
        "class Box:\n    pass\n\ndef probe():\n    b = Box()\n    setattr(b, 'v', 0)\n    return b.v"
    ),
}


@pytest.mark.parametrize("name", sorted(HONEST))
def test_honest_neighbours_pass(judge_probe_checked: JudgeFn, name: str) -> None:
    result = judge_probe_checked(HONEST[name] + "\n")
    assert result.verdict == Verdict.ACCEPTED, (name, result.verdict, result.message)


@pytest.fixture
def judge_probe_checked(checked_runner: Runner, probe: tuple[ProblemFiles, Expectations]) -> JudgeFn:
    problem, expectations = probe

    def judge(code: str) -> JudgeResult:
        return checked_runner.judge(
            checked_runner.job_for(problem, expectations, textwrap.dedent(code), "submit")
        )

    return judge
