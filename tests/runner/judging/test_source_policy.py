# ruff: noqa: E501  (the attempts table keeps one attempt per line, source and all)
"""The source policy, attacked through the real judging entry point (``Runner.judge``, as every
route reaches it) with the sandbox behind it: each bypass attempt must end in ``compile_error``
whose message names the line and the rule, and nothing of it may run. Then what it must not
refuse (public PyTorch, a learner's own private attributes) and what a problem may allow.
"""

from __future__ import annotations

import dataclasses
import re
import textwrap

import pytest

from runner import jobs
from runner.engine import Runner
from runner.format.problem import ProblemFiles, ProblemFormatError, parse_metadata
from runner.jobs import Expectations
from runner.judging import source_policy
from runner.verdict import Verdict


def code(src: str) -> str:
    return textwrap.dedent(src).lstrip()


# (class, source, the line it must name, words the message must contain). Every source would
# do something if it ran: the probe returns 0 only after the forbidden step.
ATTEMPTS = [
    (
        "private torch attribute",
        "import torch\ndef probe():\n    return int(torch._C._get_tracing_state() is None) - 1\n",
        3,
        "private",
    ),
    (
        "alias of torch",
        "import torch\nt = torch\ndef probe():\n    return len(t._C.__name__) * 0\n",
        2,
        "only be used through its names",
    ),
    (
        "alias passed as an argument",
        "import torch\ndef f(m):\n    return m\ndef probe():\n    return f(torch) and 0\n",
        5,
        "only be used through its names",
    ),
    ("from torch import _C", "from torch import _C\ndef probe():\n    return 0\n", 1, "private"),
    ("import torch._C as c", "import torch._C as c\ndef probe():\n    return 0\n", 1, "private"),
    (
        "private submodule",
        "from torch.utils._python_dispatch import TorchDispatchMode\ndef probe():\n    return 0\n",
        1,
        "private",
    ),
    (
        "module internal table",
        "import torch.nn as nn\ndef probe():\n    m = nn.Linear(1, 1)\n    return len(m._forward_hooks)\n",
        4,
        "private",
    ),
    (
        "internal table via self",
        "import torch.nn as nn\nclass M(nn.Module):\n    def probe(self):\n        return len(self._parameters) * 0\ndef probe():\n    return M().probe()\n",
        4,
        "private",
    ),
    (
        "torch's name defined on self",
        "import torch\nclass A:\n    def f(self):\n        self._C = self._C\n        return self._C\ndef probe():\n    return 0\n",
        4,
        "private",
    ),
    (
        "importlib",
        "import importlib\ndef probe():\n    return importlib.import_module('torch._C') and 0\n",
        1,
        "importing `importlib`",
    ),
    ("threading", "import threading\ndef probe():\n    return 0\n", 1, "importing `threading`"),
    ("ctypes", "import ctypes\ndef probe():\n    return 0\n", 1, "importing `ctypes`"),
    ("gc", "import gc\ndef probe():\n    return len(gc.get_objects()) * 0\n", 1, "importing `gc`"),
    ("sys", "import sys\ndef probe():\n    return 0\n", 1, "importing `sys`"),
    ("os", "import os\ndef probe():\n    return 0\n", 1, "importing `os`"),
    ("inspect", "import inspect\ndef probe():\n    return 0\n", 1, "importing `inspect`"),
    ("builtins", "import builtins\ndef probe():\n    return 0\n", 1, "importing `builtins`"),
    (
        "multiprocessing",
        "import multiprocessing\ndef probe():\n    return 0\n",
        1,
        "importing `multiprocessing`",
    ),
    ("the judge itself", "import runner.testing\ndef probe():\n    return 0\n", 1, "judge's own code"),
    (
        "the judge, from-import",
        "from runner import guard\ndef probe():\n    return 0\n",
        1,
        "judge's own code",
    ),
    (
        "a module reached through torch",
        "import torch\ndef probe():\n    return len(torch.sys.modules) * 0\n",
        3,
        "`sys` module",
    ),
    ("pickle loader", "import pickle\ndef probe():\n    return 0\n", 1, "importing `pickle`"),
    ("marshal loader", "import marshal\ndef probe():\n    return 0\n", 1, "importing `marshal`"),
    ("codecs loader", "import codecs\ndef probe():\n    return 0\n", 1, "importing `codecs`"),
    ("io loader", "import io\ndef probe():\n    return 0\n", 1, "importing `io`"),
    (
        "operator.attrgetter",
        "from operator import attrgetter\ndef probe():\n    return 0\n",
        1,
        "importing `operator`",
    ),
    (
        "torch.load unpickles",
        "import torch\ndef probe():\n    return torch.load(None) and 0\n",
        3,
        "unpickles",
    ),
    ("exec", "def probe():\n    exec('x = 1')\n    return 0\n", 2, "runs code given as a string"),
    ("eval", "def probe():\n    return eval('0')\n", 2, "runs code given as a string"),
    ("compile", "def probe():\n    return compile('0', 's', 'eval') and 0\n", 2, "builds code"),
    ("__import__", "def probe():\n    return __import__('os') and 0\n", 2, "computed name"),
    (
        "__import__ via __builtins__",
        "def probe():\n    return __builtins__['__import__']('os') and 0\n",
        2,
        "`__builtins__`",
    ),
    ("breakpoint", "def probe():\n    breakpoint()\n    return 0\n", 2, "debugger"),
    ("open a file", "def probe():\n    return len(open('/proc/self/maps').read()) * 0\n", 2, "no files"),
    ("globals() write", "def probe():\n    globals()['x'] = 1\n    return 0\n", 2, "namespace"),
    (
        "vars() of a module",
        "import torch\ndef probe():\n    return len(vars(torch.nn)) * 0\n",
        3,
        "namespace",
    ),
    ("locals()", "def probe():\n    return len(locals()) * 0\n", 2, "namespace"),
    (
        "getattr with a built name",
        "import torch\ndef probe():\n    return getattr(torch.nn, '_' + 'C', 0)\n",
        3,
        "computed name",
    ),
    (
        "getattr with a constant private name",
        "import torch.nn as nn\ndef probe():\n    return len(getattr(nn.Linear(1, 1), '_forward_hooks')) * 0\n",
        3,
        "private",
    ),
    (
        "getattr as a value",
        "import functools\ndef probe():\n    g = functools.partial(getattr)\n    return 0\n",
        3,
        "only be called directly",
    ),
    (
        "setattr with a computed name",
        "import torch\ndef probe():\n    name = 'x'\n    setattr(torch.nn.Linear(1, 1), name, 1)\n    return 0\n",
        4,
        "computed name",
    ),
    ("dunder __class__", "def probe():\n    return len(().__class__.__name__) * 0\n", 2, "`__class__`"),
    (
        "dunder __subclasses__",
        "def probe():\n    return len(object.__subclasses__()) * 0\n",
        2,
        "`__subclasses__`",
    ),
    ("dunder __globals__", "def probe():\n    return len(probe.__globals__) * 0\n", 2, "`__globals__`"),
    ("dunder __code__", "def probe():\n    return probe.__code__.co_argcount\n", 2, "`__code__`"),
    ("dunder __mro__", "def probe():\n    return len(int.__mro__) * 0\n", 2, "`__mro__`"),
    ("dunder __bases__", "def probe():\n    return len(int.__bases__) * 0\n", 2, "`__bases__`"),
    (
        "dunder __getattribute__",
        "def probe():\n    return object.__getattribute__(1, 'real') * 0\n",
        2,
        "`__getattribute__`",
    ),
    (
        "dunder __dict__ of a module",
        "import torch\ndef probe():\n    return len(torch.nn.functional.__dict__) * 0\n",
        3,
        "`__dict__`",
    ),
    (
        "frames through a traceback",
        "def probe():\n    try:\n        1 / 0\n    except ZeroDivisionError as e:\n        return len(e.__traceback__.tb_frame.f_globals) * 0\n",
        5,
        "`__traceback__`",
    ),
    (
        "frames through a generator",
        "def probe():\n    g = (i for i in [0])\n    return len(g.gi_frame.f_back.f_globals) * 0\n",
        3,
        "frames",
    ),
    (
        "unicode identifier (NFKC)",
        "def probe():\n    return ｅｖａｌ('0')\n",
        2,
        "runs code given as a string",
    ),
    (
        "unicode dunder (NFKC)",
        "def probe():\n    return len(().__ｃｌａｓｓ__.__name__) * 0\n",
        2,
        "`__class__`",
    ),
    (
        "f-string expression",
        "def probe():\n    return len(f'{().__class__.__mro__}') * 0\n",
        2,
        "`__class__`",
    ),
    (
        "format string reads attributes",
        "def probe():\n    return len('{0.__class__}'.format(1)) * 0\n",
        2,
        "reads attributes",
    ),
    (
        "own method handed a torch module as self",
        "from torch import nn\nclass A:\n    def g(self):\n        self._global_forward_hooks = self._global_forward_hooks\n"
        "        return self._global_forward_hooks\ndef probe():\n    return len(A.g(nn.modules.module)) * 0\n",
        7,
        "only called on an instance",
    ),
    (
        "own method taken as a value",
        "import functools\nfrom torch import nn\nclass A:\n    def g(self):\n        return 0\n"
        "def probe():\n    return functools.partial(A.g, nn)()\n",
        7,
        "only called on an instance",
    ),
    (
        "a function whose parameter is called self",
        "from torch import nn\ndef g(self):\n    self._x = 1\n    return self._x\ndef probe():\n    return 0\n",
        3,
        "private",
    ),
    (
        "self rebound",
        "from torch import nn\nclass A:\n    def g(self):\n        self = nn\n        self._x = 1\n        return 0\n"
        "def probe():\n    return A().g()\n",
        5,
        "private",
    ),
    (
        "format field nested in a spec",
        "def probe():\n    return len('{0:{1.__class__}}'.format(1, 2)) * 0\n",
        2,
        "reads attributes",
    ),
    (
        "format string built at run time",
        "def probe():\n    s = '{0.__cl' + 'ass__}'\n    return len(s.format(1)) * 0\n",
        3,
        "string literal",
    ),
    (
        "match class pattern",
        "def probe():\n    match 1:\n        case int(__class__=c):\n            return 0\n    return 0\n",
        3,
        "`__class__`",
    ),
    ("walrus", "def probe():\n    if (g := globals()):\n        return 0\n    return 0\n", 2, "namespace"),
    ("lambda default argument", "def probe():\n    return (lambda e=eval: e('0'))()\n", 2, "runs code"),
    ("class body", "class A:\n    ns = vars()\ndef probe():\n    return 0\n", 2, "namespace"),
    (
        "decorator",
        "import torch\n@torch._C._disabled_torch_function_impl\ndef probe():\n    return 0\n",
        2,
        "private",
    ),
    (
        "type() with three arguments",
        "def probe():\n    return len(type('X', (), {}).__name__) * 0\n",
        2,
        "use `class`",
    ),
    (
        "metaclass",
        "class M(type):\n    pass\nclass A(metaclass=M):\n    pass\ndef probe():\n    return 0\n",
        3,
        "metaclass",
    ),
    (
        "typing.get_type_hints evaluates strings",
        # (the string annotation it would evaluate is refused on its own: test_fresh_source_policy.py)
        "import typing\ndef g(x: int):\n    pass\ndef probe():\n    return len(typing.get_type_hints(g)) * 0\n",
        5,
        "evaluates strings",
    ),
    (
        "torch.ops.aten",
        "import torch\ndef probe():\n    return int(torch.ops.aten.add(torch.zeros(1), 0).sum())\n",
        3,
        "operator registry",
    ),
    (
        "private aten name",
        "import torch\ndef probe():\n    return int(torch._native_batch_norm_legit is None)\n",
        3,
        "private",
    ),
    (
        "redispatch",
        "def probe(op=None, keys=None):\n    return op.redispatch(keys) if op else 0\n",
        2,
        "below the dispatcher",
    ),
    (
        "torch.library replaces kernels",
        "import torch.library\ndef probe():\n    return 0\n",
        1,
        "replace PyTorch's own",
    ),
    (
        "torch.overrides intercepts",
        "from torch.overrides import TorchFunctionMode\ndef probe():\n    return 0\n",
        1,
        "intercepts",
    ),
    (
        "a global module hook",
        "import torch.nn as nn\ndef probe():\n    nn.modules.module.register_module_forward_hook(lambda *a: None)\n    return 0\n",
        3,
        "every module",
    ),
    (
        "patching torch",
        "import torch\ntorch.allclose = lambda *a, **k: True\ndef probe():\n    return 0\n",
        2,
        "changing `torch.allclose`",
    ),
    (
        "patching a torch class",
        "import torch.nn as nn\nnn.Module.register_forward_hook = None\ndef probe():\n    return 0\n",
        2,
        "changing",
    ),
    (
        "tensor subclass",
        "import torch\nclass T(torch.Tensor):\n    pass\ndef probe():\n    return 0\n",
        2,
        "tensor subclass",
    ),
    (
        "__torch_function__",
        "class T:\n    @classmethod\n    def __torch_function__(cls, f, types, args=(), kwargs=None):\n        return f(*args)\ndef probe():\n    return 0\n",
        3,
        "`__torch_function__`",
    ),
    (
        "__del__ runs later",
        "class T:\n    def __del__(self):\n        pass\ndef probe():\n    return 0\n",
        2,
        "`__del__`",
    ),
    ("star import", "from torch import *\ndef probe():\n    return 0\n", 1, "import the names you use"),
    (
        "torch.jit forks",
        "import torch\ndef probe():\n    return torch.jit.wait(torch.jit.fork(int)) * 0\n",
        3,
        "compiles and forks",
    ),
    (
        "deleting a torch function",
        "import torch.nn.functional as F\ndel F.softmax\ndef probe():\n    return 0\n",
        2,
        "changing `torch.nn.functional.softmax`",
    ),
    (
        "augmented assignment to torch",
        "import torch\ntorch.pi += 1\ndef probe():\n    return 0\n",
        2,
        "changing `torch.pi`",
    ),
    (
        "getattr with unpacked arguments",
        "import torch\ndef probe():\n    return getattr(*[torch.nn, '_C'])\n",
        3,
        "needs an object and a name",
    ),
    (
        "statements as strings (benchmark Timer)",
        "from torch.utils.benchmark import Timer\ndef probe():\n    return Timer('0').timeit(1) and 0\n",
        1,
        "statements given as strings",
    ),
    (
        "a fake class's module name",
        "class Fake:\n    __module__ = 'torch.fake'\ndef probe():\n    return 0\n",
        2,
        "`__module__`",
    ),
    (
        "a method reached through its object",
        "def probe():\n    return len(print.__self__.__dict__) * 0\n",
        2,
        "`__self__`",
    ),
    ("the class hierarchy by method", "def probe():\n    return len(int.mro()) * 0\n", 2, "class hierarchy"),
    ("global __builtins__", "def probe():\n    global __builtins__\n    return 0\n", 2, "`__builtins__`"),
]


@pytest.fixture(scope="module")
def probe_problem(
    runner: Runner, probe: tuple[ProblemFiles, Expectations]
) -> tuple[ProblemFiles, Expectations]:
    return probe


@pytest.mark.parametrize(("name", "source", "line", "words"), ATTEMPTS, ids=[a[0] for a in ATTEMPTS])
def test_bypass_attempt_is_refused_before_it_runs(
    checked_runner: Runner,
    probe_problem: tuple[ProblemFiles, Expectations],
    name: str,
    source: str,
    line: int,
    words: str,
) -> None:
    problem, expectations = probe_problem
    # Precondition: the source is valid Python, so a compile_error can only be the policy's.
    compile(source, "solution.py", "exec")
    result = checked_runner.judge(problem.job(expectations, source, "submit"))
    assert result.verdict == Verdict.COMPILE_ERROR, (name, result.verdict, result.message)
    assert result.message.startswith(f"Line {line}: "), (name, result.message)
    assert words in result.message, (name, result.message)
    assert all(c.status == jobs.CASE_NOT_RUN and c.line == line for c in result.cases)
    assert result.passed == 0 and result.total == len(expectations.cases)


def test_a_refused_job_reports_no_run(
    checked_runner: Runner, probe_problem: tuple[ProblemFiles, Expectations]
) -> None:
    """A refused job's result is the policy's alone: no case time or output of a run (none of its
    code ran: tests/runner/sandbox/test_clearance.py)."""
    problem, expectations = probe_problem
    result = checked_runner.judge(problem.job(expectations, "import os\ndef probe():\n    return 0\n", "run"))
    assert result.verdict == Verdict.COMPILE_ERROR
    assert all(c.time_ms == 0.0 and c.stdout is None for c in result.cases)


PUBLIC = code("""
    import math
    from collections import OrderedDict
    import torch
    import torch.nn as nn
    import torch.nn.functional as F


    class Counter(nn.Module):
        def __init__(self):
            super().__init__()
            self._calls = 0
            self.layer = nn.Linear(2, 2)

        def forward(self, x):
            self._calls += 1
            return F.relu(self.layer(x))

        def calls(self):
            return getattr(self, "_calls", 0)


    class Twice(Counter):
        def __init__(self):
            Counter.__init__(self)  # the old spelling of super().__init__()

        @classmethod
        def make(cls):
            return cls()


    def probe():
        m = Twice.make()
        handle = m.register_forward_hook(lambda mod, args, out: None)
        m(torch.ones(1, 2))
        handle.remove()
        name = type(m).__name__
        table = OrderedDict(calls=m.calls())
        return int(table["calls"] - 1 + math.floor(0.5)) + len(f"{name}") * 0 + len("{} {:.1f}".format(1, 2.0)) * 0
""")


def test_public_pytorch_and_own_private_attributes_are_accepted(
    checked_runner: Runner, probe_problem: tuple[ProblemFiles, Expectations]
) -> None:
    problem, expectations = probe_problem
    assert source_policy.check(PUBLIC) is None
    result = checked_runner.judge(problem.job(expectations, PUBLIC, "submit"))
    assert result.verdict == Verdict.ACCEPTED, result.message


def test_a_problem_can_allow_what_it_needs(
    checked_runner: Runner, probe_problem: tuple[ProblemFiles, Expectations]
) -> None:
    problem, expectations = probe_problem
    source = "import operator\ndef probe():\n    return operator.sub(1, 1)\n"
    refused = checked_runner.judge(problem.job(expectations, source, "submit"))
    assert refused.verdict == Verdict.COMPILE_ERROR and "`operator`" in refused.message
    allowing = dataclasses.replace(problem, source_allow=("operator",))
    assert checked_runner.judge(allowing.job(expectations, source, "submit")).verdict == Verdict.ACCEPTED
    # What is allowed travels with the job (a runner worker behind a broker sees the same job).
    job = allowing.job(expectations, source, "submit")
    assert jobs.Job.from_dict(job.to_dict()).source_allow == ("operator",)


TOML = 'title = "P"\ndifficulty = "easy"\ncategory = "Testing"\nentry_point = "probe"\n'


def test_problem_toml_source_policy_is_validated() -> None:
    meta = parse_metadata(TOML + '[source_policy]\nallow = ["numpy"]\nreason = "arrays"\n', "probe-x")
    assert meta["source_allow"] == ("numpy",)
    for bad, words in (
        ('[source_policy]\nallow = ["numpy"]\n', "reason"),
        ('[source_policy]\nallow = ["runner.testing"]\nreason = "x"\n', "the judge itself"),
        ('[source_policy]\nallow = ["not a name"]\nreason = "x"\n', "dotted Python name"),
        ('[source_policy]\nallow = "numpy"\nreason = "x"\n', "list of names"),
        ('[source_policy]\npermit = ["numpy"]\n', "unknown keys"),
    ):
        with pytest.raises(ProblemFormatError, match=words):
            parse_metadata(TOML + bad, "probe-x")


def test_a_custom_run_is_checked_before_the_reference_runs(
    checked_runner: Runner, probe_problem: tuple[ProblemFiles, Expectations]
) -> None:
    from runner.format.custom import CASE_NAME, CustomInput

    problem, expectations = probe_problem
    job = dataclasses.replace(
        problem.job(expectations, "import gc\ndef probe():\n    return 0\n", "run"),
        custom=CustomInput(arguments={}, reference=problem.solution),
    )
    result = checked_runner.judge(job)
    assert result.verdict == Verdict.COMPILE_ERROR and result.message.startswith("Line 1: ")
    assert [c.name for c in result.cases] == [CASE_NAME]


def test_validation_reports_policy_kills_and_refuses_a_refused_reference(
    checked_runner: Runner, probe_problem: tuple[ProblemFiles, Expectations]
) -> None:
    from runner.format.validate import validate_problem

    problem, _ = probe_problem
    cheat = "import torch\ndef probe():\n    return int(torch._C is None)\n"
    honest_mistake = "def probe():\n    return 1\n"
    with_mutants = dataclasses.replace(problem, mutants={"cheat.py": cheat, "off_by_one.py": honest_mistake})
    report = validate_problem(with_mutants, checked_runner)
    by_name = {m.name: m for m in report.mutants}
    assert by_name["cheat.py"].killed and by_name["cheat.py"].caught_by == [source_policy.KILLED_BY_POLICY]
    assert by_name["off_by_one.py"].killed and by_name["off_by_one.py"].caught_by == ["example", "hidden"]
    assert any(w.file == "mutants/cheat.py" and "source policy" in w.message for w in report.warnings)
    assert re.search(r"cheat\.py +\. \.  killed by the source policy", report.render(matrix=True))

    refused_reference = dataclasses.replace(problem, solution="import os\ndef probe():\n    return 0\n")
    report = validate_problem(refused_reference, checked_runner)
    assert any(
        f.file == "solution.py" and "not accepted when judged: Line 1: importing `os`" in f.message
        for f in report.errors
    ), [str(f) for f in report.errors]


def test_code_too_deep_to_check_is_refused_not_let_through(
    checked_runner: Runner, probe_problem: tuple[ProblemFiles, Expectations]
) -> None:
    """A parser that gives up on the host must not mean "unchecked": the rest would run unread."""
    problem, expectations = probe_problem
    source = "import os\nx = " + "-" * 100_000 + "1\ndef probe():\n    return 0\n"
    result = checked_runner.judge(problem.job(expectations, source, "submit"))
    assert result.verdict == Verdict.COMPILE_ERROR and "nested too deeply" in result.message, result.message


def test_the_check_and_the_sandbox_read_the_same_text(
    checked_runner: Runner, probe_problem: tuple[ProblemFiles, Expectations]
) -> None:
    """A coding cookie cannot make the sandbox run text the host did not check: both read the
    same decoded string, in which the escaped line below stays a comment."""
    problem, expectations = probe_problem
    source = "# coding: unicode_escape\ndef probe():\n    return 0\n#\\x0aprobe = lambda: 1\n"
    assert source_policy.check(source) is None
    result = checked_runner.judge(problem.job(expectations, source, "submit"))
    assert result.verdict == Verdict.ACCEPTED, result.message
