# ruff: noqa: E501  (the routes tables keep one source per line)
"""The public setters of process-wide torch state, against the source policy.

Each setter either stays allowed because it cannot change what the tests observe (print options,
warnings, seeds the judge shifts per case, grad mode inside ``with``), or is refused on the host
before anything runs, with the line and a reason in the learner's terms: never the run-time error
or "modified judge" a learner met when such a call reached the sandbox. Every refused setter is
tried by each route a name can take (a path, ``from … import … as``, a submodule, a re-exported
module, a constant ``getattr``, a bound attribute such as ``__call__``), and a problem's ``allow``
opens exactly the setter it names.
"""

from __future__ import annotations

import dataclasses

import pytest

from runner import jobs
from runner.engine import Runner
from runner.format.problem import ProblemFiles, ProblemFormatError, parse_metadata
from runner.jobs import Expectations
from runner.judging import source_policy
from runner.judging.source_rules import PROCESS_WIDE_SETTINGS, SCOPED_SETTINGS, SETTERS_THAT_CANNOT_RUN
from runner.verdict import Verdict

# Where each setter lives in torch's public API (every name of PROCESS_WIDE_SETTINGS once at least).
SETTERS = {
    "set_default_dtype": "torch",
    "set_default_tensor_type": "torch",
    "set_default_device": "torch",
    "set_detect_anomaly": "torch.autograd",
    "detect_anomaly": "torch.autograd",
    "set_anomaly_enabled": "torch",
    "use_deterministic_algorithms": "torch",
    "set_deterministic_debug_mode": "torch",
    "set_num_threads": "torch",
    "set_num_interop_threads": "torch",
    "set_flush_denormal": "torch",
    "set_float32_matmul_precision": "torch",
    "set_autocast_enabled": "torch",
    "set_autocast_cpu_enabled": "torch",
    "set_autocast_dtype": "torch",
    "set_autocast_cpu_dtype": "torch",
    "set_autocast_gpu_dtype": "torch",
    "set_autocast_cache_enabled": "torch",
    "set_autocast_ipu_enabled": "torch",
    "set_autocast_ipu_dtype": "torch",
    "set_autocast_xla_enabled": "torch",
    "set_autocast_xla_dtype": "torch",
    "set_flags": "torch.backends.mkldnn",
    "preferred_linalg_library": "torch.backends.cuda",
    "preferred_blas_library": "torch.backends.cuda",
    "preferred_rocm_fa_library": "torch.backends.cuda",
    "enable_operations": "torch.backends.python_native",
    "disable_operations": "torch.backends.python_native",
    "enable_dispatch_keys": "torch.backends.python_native",
    "disable_dispatch_keys": "torch.backends.python_native",
    "set_fastpath_enabled": "torch.backends.mha",
    "enable_flash_sdp": "torch.backends.cuda",
    "enable_mem_efficient_sdp": "torch.backends.cuda",
    "enable_math_sdp": "torch.backends.cuda",
    "enable_cudnn_sdp": "torch.backends.cuda",
    "allow_fp16_bf16_reduction_math_sdp": "torch.backends.cuda",
}


def test_every_refused_setter_is_tried() -> None:
    assert set(SETTERS) == set(PROCESS_WIDE_SETTINGS)


def _routes(name: str, module: str) -> dict[str, tuple[str, int]]:
    """Spellings of one call to ``module.name``, each with the line the refusal must name."""
    parent, _, local = module.rpartition(".")
    routes = {
        "path": (f"import torch\n{module}.{name}(1)\n", 2),
        "from import as": (f"from {module} import {name} as s\ns(1)\n", 1),
        "module alias": (f"import {module} as m\nm.{name}(1)\n", 2),
        "re-exported module": (f"import torch.nn.functional as F\nF.{module}.{name}(1)\n", 2),
        "constant getattr": (f"import torch\ngetattr({module}, '{name}')(1)\n", 2),
        "bound attribute": (f"import torch\n{module}.{name}.__call__(1)\n", 2),
        "in a function body": (f"import torch\ndef probe():\n    {module}.{name}(1)\n    return 0\n", 3),
    }
    if parent:
        routes["submodule imported by name"] = (f"from {parent} import {local}\n{local}.{name}(1)\n", 2)
    return routes


CASES = [
    (name, route, source, line)
    for name, module in SETTERS.items()
    for route, (source, line) in _routes(name, module).items()
]


@pytest.mark.parametrize(("name", "route", "source", "line"), CASES, ids=[f"{c[0]}-{c[1]}" for c in CASES])
def test_a_process_wide_setter_is_refused_by_every_route(
    name: str, route: str, source: str, line: int
) -> None:
    compile(source, "solution.py", "exec")  # valid Python: a refusal can only be the policy's
    refusal = source_policy.check(source)
    assert refusal is not None, (name, route)
    assert refusal.line == line and refusal.rule == "process-wide", (name, route, refusal)
    assert f"{name}` is not allowed" in refusal.message, refusal.message
    assert PROCESS_WIDE_SETTINGS[name] in refusal.message, refusal.message


ANOMALY_ROUTES = {
    "the submodule": "import torch\ntorch.autograd.anomaly_mode.set_detect_anomaly(True)\n",
    "the submodule, imported": "from torch.autograd.anomaly_mode import detect_anomaly\n",
    "a context manager": "import torch\ndef probe():\n    with torch.autograd.detect_anomaly():\n        return 0\n",
    "a context manager, aliased": (
        "from torch.autograd import set_detect_anomaly as watch\ndef probe():\n    with watch(True):\n        return 0\n"
    ),
    "a decorator": "import torch\n@torch.autograd.set_detect_anomaly(True)\ndef probe():\n    return 0\n",
    "the C entry point torch re-exports": "import torch\ntorch.set_anomaly_enabled(True)\n",
}


@pytest.mark.parametrize("route", sorted(ANOMALY_ROUTES))
def test_anomaly_detection_is_a_debugging_aid_to_remove(route: str) -> None:
    refusal = source_policy.check(ANOMALY_ROUTES[route])
    assert refusal is not None and refusal.rule == "process-wide", (route, refusal)
    assert "debugging aid" in refusal.message and "Remove it before submitting" in refusal.message


SCOPED_REFUSED = {
    "called on its own": "import torch\ntorch.set_grad_enabled(False)\n",
    "through torch.autograd": "import torch\ndef probe():\n    torch.autograd.set_grad_enabled(False)\n",
    "through grad_mode": "import torch.autograd.grad_mode as g\ng.set_grad_enabled(False)\n",
    "imported by name": "from torch import set_grad_enabled as g\ng(False)\n",
    "kept as a value": "import torch\nf = torch.set_grad_enabled\n",
    "entered by hand": "import torch\ntorch.set_grad_enabled(False).__enter__()\n",
    "bound then entered": "import torch\nmode = torch.set_grad_enabled(False)\nwith mode:\n    pass\n",
    "multithreading": "import torch\ntorch.autograd.set_multithreading_enabled(False)\n",
    "view replay": "import torch\ntorch.autograd.grad_mode.set_view_replay_enabled(True)\n",
}


@pytest.mark.parametrize("route", sorted(SCOPED_REFUSED))
def test_a_scoped_setter_called_on_its_own_is_refused(route: str) -> None:
    source = SCOPED_REFUSED[route]
    refusal = source_policy.check(source)
    assert refusal is not None and refusal.rule == "process-wide", (route, refusal)
    assert "only allowed as a `with` block" in refusal.message, refusal.message
    assert any(instead in refusal.message for _, instead in SCOPED_SETTINGS.values()), refusal.message


SCOPED_ALLOWED = {
    "with": "import torch\ndef probe(x):\n    with torch.set_grad_enabled(False):\n        return x\n",
    "with, through torch.autograd": (
        "import torch\ndef probe(x):\n    with torch.autograd.set_grad_enabled(x.requires_grad):\n        return x\n"
    ),
    "with, imported by name": (
        "from torch import set_grad_enabled\ndef probe(x):\n    with set_grad_enabled(False), set_grad_enabled(True):\n"
        "        return x\n"
    ),
    "async with": "import torch\nasync def probe(x):\n    async with torch.set_grad_enabled(False):\n        return x\n",
    "a decorator": "import torch\n@torch.set_grad_enabled(False)\ndef probe(x):\n    return x\n",
    "multithreading in with": (
        "import torch\ndef probe(x):\n    with torch.autograd.set_multithreading_enabled(False):\n        return x\n"
    ),
}


@pytest.mark.parametrize("route", sorted(SCOPED_ALLOWED))
def test_a_scoped_setter_inside_with_is_allowed(route: str) -> None:
    assert source_policy.check(SCOPED_ALLOWED[route]) is None


def test_a_problem_allowance_opens_exactly_the_setter_it_names() -> None:
    dtype = "import torch\ntorch.set_default_dtype(torch.float64)\n"
    assert source_policy.check(dtype, allow=("torch.set_default_dtype",)) is None
    # Its neighbours stay refused: another setter, and a setter under a wider allowance.
    assert source_policy.check(
        "import torch\ntorch.set_default_device('cpu')\n", allow=("torch.set_default_dtype",)
    )
    wider = source_policy.check(
        "import torch\ntorch.autograd.set_detect_anomaly(True)\n", allow=("torch.autograd",)
    )
    assert (
        wider is not None and "the problem allows `torch.autograd`, not `set_detect_anomaly`" in wider.message
    )
    grad = "import torch\ntorch.set_grad_enabled(False)\n"
    assert source_policy.check(grad) is not None
    assert source_policy.check(grad, allow=("torch.set_grad_enabled",)) is None


STILL_ALLOWED = """
import torch


def probe():
    torch.set_printoptions(precision=2)
    torch.set_warn_always(False)
    torch.manual_seed(0)
    generator = torch.Generator().manual_seed(1)
    x = torch.randn(3, generator=generator, requires_grad=True)
    with torch.set_grad_enabled(False):
        y = x * 2
    with torch.autograd.set_multithreading_enabled(False):
        (x * 3).sum().backward()
    print(y)
    return int(y.requires_grad) + int(not torch.is_grad_enabled())
"""


def test_setters_that_cannot_change_the_tests_still_run_in_the_sandbox(
    checked_runner: Runner, probe: tuple[ProblemFiles, Expectations]
) -> None:
    problem, expectations = probe
    assert source_policy.check(STILL_ALLOWED) is None
    result = checked_runner.judge(problem.job(expectations, STILL_ALLOWED, "submit"))
    assert result.verdict == Verdict.ACCEPTED, (result.message, [c.message for c in result.cases])


# What a learner met before the policy refused these calls (a runtime error blaming a read-only module,
# an integrity error naming the judge), and what they read now: the line and what to write instead.
SEEN = {
    "set_default_dtype": (
        "import torch\ntorch.set_default_dtype(torch.float64)\ndef probe():\n    return 0\n",
        "pass `dtype=` where you create tensors instead",
    ),
    "set_detect_anomaly": (
        "import torch\ntorch.autograd.set_detect_anomaly(True)\ndef probe():\n    return 0\n",
        "Remove it before submitting",
    ),
}


@pytest.mark.parametrize("name", sorted(SEEN))
def test_the_learner_reads_the_setters_line_and_reason_not_the_judges_error(
    checked_runner: Runner, probe: tuple[ProblemFiles, Expectations], name: str
) -> None:
    problem, expectations = probe
    source, words = SEEN[name]
    for mode in ("run", "submit"):
        result = checked_runner.judge(problem.job(expectations, source, mode))
        assert result.verdict == Verdict.COMPILE_ERROR, (name, result.verdict, result.message)
        assert result.message.startswith("Line 2: ") and words in result.message, result.message
        assert all(c.status == jobs.CASE_NOT_RUN and c.line == 2 for c in result.cases)
    if name in SETTERS_THAT_CANNOT_RUN:
        return  # no problem can allow it (below)
    # With the problem allowing it, the call reaches the sandbox: whatever it does there is the
    # learner's verdict, never the platform's.
    allowing = dataclasses.replace(problem, source_allow=(source.splitlines()[1].split("(")[0],))
    result = checked_runner.judge(allowing.job(expectations, source, "submit"))
    assert result.verdict != Verdict.COMPILE_ERROR and result.verdict != Verdict.INTERNAL_ERROR, (
        result.message
    )


CANNOT_RUN = {
    "set_default_dtype": "torch.set_default_dtype(torch.float64)",
    "set_default_tensor_type": "torch.set_default_tensor_type(torch.DoubleTensor)",
    "set_num_interop_threads": "torch.set_num_interop_threads(1)",
}
TOML = 'title = "P"\ndifficulty = "easy"\ncategory = "Testing"\nentry_point = "probe"\n'


def test_every_setter_that_cannot_run_is_tried() -> None:
    assert set(CANNOT_RUN) == set(SETTERS_THAT_CANNOT_RUN)
    assert set(SETTERS_THAT_CANNOT_RUN) <= set(PROCESS_WIDE_SETTINGS)


@pytest.mark.parametrize("name", sorted(CANNOT_RUN))
def test_an_allowance_of_a_setter_that_cannot_run_is_refused_for_its_author(
    runner: Runner, probe: tuple[ProblemFiles, Expectations], name: str
) -> None:
    """What the sandbox does with the call (the runner here has no source policy: as if allowed):
    a runtime error, in every case, at import and inside the entry point alike. So validation
    refuses the allowance, by any path that names the setter, with what the author can do instead."""
    problem, expectations = probe
    call = CANNOT_RUN[name]
    for source in (
        f"import torch\n{call}\ndef probe():\n    return 0\n",
        f"import torch\ndef probe():\n    {call}\n    return 0\n",
    ):
        result = runner.judge(problem.job(expectations, source, "submit"))
        assert result.verdict == Verdict.RUNTIME_ERROR, (name, result.verdict, result.message)
    for allowance in (f"torch.{name}", name):
        toml = TOML + f'[source_policy]\nallow = ["{allowance}"]\nreason = "the statement asks for it"\n'
        with pytest.raises(ProblemFormatError, match="cannot be allowed") as refused:
            parse_metadata(toml, "probe-x")
        assert SETTERS_THAT_CANNOT_RUN[name] in str(refused.value)
