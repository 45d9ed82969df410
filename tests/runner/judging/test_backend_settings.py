# ruff: noqa: E501  (the routes tables keep one source per line)
"""torch.backends' process-wide switches, the scoped settings and contexts entered by hand, against
the source policy.

torch.backends holds flags every later torch call reads (which oneDNN, NNPACK or attention kernels
run, einsum's contraction order) as properties of its modules and flag groups, and setters beside
them. A learner's assignment or setter call would change what the tests of every later case
observe (tests/runner/redteam/test_process_wide_state.py shows it in the real sandbox), so each is
refused on the host by every route, with the line and a reason in the learner's terms; reading a
flag, `with` blocks and decorators (which put what they set back) stay allowed. The names the rules
hold are compared with the installed torch, so a release that adds a backend or a setter fails here.
"""

from __future__ import annotations

import contextlib
import inspect
import pkgutil
import types

import pytest
import torch
import torch.backends

from runner.judging import source_policy
from runner.judging.source_rules import (
    BACKEND_NAMESPACES,
    BACKEND_SCOPED,
    BACKEND_WRITE,
    PROCESS_WIDE_SETTINGS,
    SCOPED_SETTINGS,
)

# --- the rules' names against the installed torch -------------------------------------------------

_VALUES = (bool, int, float, str, bytes, type(None), tuple, list, dict, set, frozenset)
# What torch.backends' modules hold besides setters and context managers: readers and classes.
_READERS = ("is_", "get_", "can_use_", "version", "cublas", "cublaslt", "blas_workspace")


def _reader(name: str) -> bool:
    """`is_available`, `get_fastpath_enabled`, `math_sdp_enabled`: but not `set_fastpath_enabled`."""
    if name.startswith(("set_", "enable_", "disable_", "allow_")):
        return False
    return name.startswith(_READERS) or name.endswith(("_enabled", "_allowed", "_available", "_disabled"))


def _backend_modules() -> dict[str, object]:
    found: dict[str, object] = {}
    for info in pkgutil.iter_modules(torch.backends.__path__):
        if not info.name.startswith("_"):
            with contextlib.suppress(ImportError):
                found[info.name] = __import__(f"torch.backends.{info.name}", fromlist=["_"])
    return found


def _namespace(module: object) -> dict[str, object]:
    inner = getattr(module, "m", None)  # a PropModule keeps its functions on the module it wraps
    names = dict(vars(inner) if isinstance(inner, types.ModuleType) else vars(module))
    names.update({k: v for k, v in vars(type(module)).items() if not isinstance(v, property)})
    return {k: v for k, v in names.items() if not k.startswith("_")}


def test_every_backend_module_and_flag_group_is_a_namespace_of_the_rules() -> None:
    modules = _backend_modules()
    assert {"cudnn", "mkldnn", "cuda", "mha", "opt_einsum"} <= set(modules)
    assert set(modules) <= BACKEND_NAMESPACES
    for module in (torch.backends, *modules.values()):
        names = set(_namespace(module)) | {k for k in vars(type(module)) if not k.startswith("_")}
        for name in names:
            value = getattr(module, name, None)  # through the properties: what a learner reads
            if isinstance(value, _VALUES) or callable(value):
                continue
            if inspect.ismodule(value) and not value.__name__.startswith("torch.backends"):
                continue  # `torch`, `sys`: modules the policy reads by their own rules
            # A module, or a flag group (`torch.backends.cuda.matmul`, `torch.backends.mkldnn.conv`).
            assert name in BACKEND_NAMESPACES, (module, name, type(value))


def test_every_backend_setter_and_context_manager_is_in_the_rules() -> None:
    seen: set[str] = set()
    for module_name, module in _backend_modules().items():
        for name, value in _namespace(module).items():
            if not callable(value) or inspect.ismodule(value):
                continue
            if inspect.isclass(value) and not hasattr(value, "__enter__"):
                continue  # a class, but for a context manager (`torch.backends.mkl.verbose`)
            if getattr(value, "__module__", "") not in (
                getattr(module, "__name__", ""),
                f"torch.backends.{module_name}",
            ):
                continue  # imported from elsewhere (`contextmanager`, `torch`)
            if _reader(name):
                continue
            known = name in PROCESS_WIDE_SETTINGS or name in BACKEND_SCOPED or name in SCOPED_SETTINGS
            assert known, f"torch.backends.{module_name}.{name}: a setter or a reader the rules do not know"
            seen.add(name)
    assert {
        "set_flags",
        "flags",
        "verbose",
        "set_fastpath_enabled",
        "enable_math_sdp",
        "sdp_kernel",
    } <= seen, seen


# --- assignments ----------------------------------------------------------------------------------

WRITES = {
    "a flag": ("import torch\ntorch.backends.mkldnn.enabled = False\n", 2),
    "a flag group's flag": ("import torch\ntorch.backends.cuda.matmul.allow_tf32 = True\n", 2),
    "a precision": ("import torch\ntorch.backends.mkldnn.matmul.fp32_precision = 'bf16'\n", 2),
    "the top-level precision": ("import torch\ntorch.backends.fp32_precision = 'tf32'\n", 2),
    "einsum's strategy": ("import torch\ntorch.backends.opt_einsum.strategy = 'greedy'\n", 2),
    "the quantized engine": ("import torch\ntorch.backends.quantized.engine = 'qnnpack'\n", 2),
    "augmented": ("import torch\ntorch.backends.cudnn.benchmark |= True\n", 2),
    "deleted": ("import torch\ndel torch.backends.mkldnn.enabled\n", 2),
    "in a tuple target": ("import torch\na, torch.backends.mkldnn.enabled = 1, False\n", 2),
    "from import": ("from torch.backends import mkldnn\nmkldnn.enabled = False\n", 2),
    "from import as": ("from torch.backends import opt_einsum as oe\noe.enabled = False\n", 2),
    "import as": ("import torch.backends.mkldnn as k\nk.enabled = False\n", 2),
    "the package imported by name": ("from torch import backends\nbackends.mkldnn.enabled = False\n", 2),
    "a flag group imported": ("from torch.backends.cuda import matmul\nmatmul.allow_tf32 = True\n", 2),
    "re-exported torch": ("import torch.nn.functional as F\nF.torch.backends.mkldnn.enabled = False\n", 2),
    "setattr": ("import torch\nsetattr(torch.backends.mkldnn, 'enabled', False)\n", 2),
    "delattr": ("import torch\ndelattr(torch.backends.mkldnn, 'enabled')\n", 2),
    "in a function body": ("import torch\ndef f():\n    torch.backends.mkldnn.deterministic = True\n", 3),
}


@pytest.mark.parametrize("route", sorted(WRITES))
def test_assigning_a_backend_flag_is_refused_by_every_route(route: str) -> None:
    source, line = WRITES[route]
    refusal = source_policy.check(source)
    assert refusal is not None and refusal.line == line, (route, refusal)
    assert refusal.rule == "process-wide" and BACKEND_WRITE in refusal.message, (route, refusal)


# Holding a backend module or flag group as a value: an assignment through it could not be read.
VALUES = {
    "a flag group": "import torch\nm = torch.backends.cuda.matmul\nm.allow_tf32 = True\n",
    "a module": "import torch\nk = torch.backends.mkldnn\nk.enabled = False\n",
    "the package": "import torch\nb = torch.backends\nb.mkldnn.enabled = False\n",
    "the package imported by name": "from torch import backends\nb = backends\n",
    "a module imported by name": "from torch.backends import mkldnn\ndef f(k=mkldnn):\n    k.enabled = False\n",
    "an argument": "import torch\nf(torch.backends.mkldnn)\ndef f(k):\n    k.enabled = False\n",
    "in a list": "import torch\nks = [torch.backends.mkldnn]\nks[0].enabled = False\n",
    "constant getattr": "import torch\nk = getattr(torch.backends, 'mkldnn')\n",
    "constant getattr of torch": "import torch\ngetattr(torch, 'backends').mkldnn.enabled = False\n",
    "re-exported torch": "import torch.nn.functional as F\nk = F.torch.backends.mkldnn\n",
    "a walrus": "import torch\nif (k := torch.backends.opt_einsum):\n    k.strategy = 'greedy'\n",
}


@pytest.mark.parametrize("route", sorted(VALUES))
def test_a_backend_module_held_as_a_value_is_refused(route: str) -> None:
    refusal = source_policy.check(VALUES[route])
    assert refusal is not None and refusal.line == 2, (route, refusal)
    assert refusal.rule == "module-value" and "not passed around or stored" in refusal.message, refusal


# Backend setters by every route (the names are PROCESS_WIDE_SETTINGS': test_process_wide_settings
# tries each by the routes every setter has; these are the backends' own).
SETTER_CALLS = {
    "cudnn.set_flags": "import torch\ntorch.backends.cudnn.set_flags(False)\n",
    "nnpack.set_flags": "from torch.backends import nnpack\nnnpack.set_flags(False)\n",
    "opt_einsum.set_flags": "import torch.backends.opt_einsum as oe\noe.set_flags(True, 'greedy')\n",
    "mha fast path": "from torch.backends.mha import set_fastpath_enabled\nset_fastpath_enabled(False)\n",
    "an attention backend": "import torch\ntorch.backends.cuda.enable_math_sdp(False)\n",
    "the linear algebra library": "import torch\ntorch.backends.cuda.preferred_linalg_library('magma')\n",
    "a python-native operation": "import torch\ntorch.backends.python_native.disable_operations('add')\n",
    "a setter on any object": "def f(obj):\n    obj.set_fastpath_enabled(False)\n",
}


@pytest.mark.parametrize("route", sorted(SETTER_CALLS))
def test_a_backend_setter_is_refused(route: str) -> None:
    refusal = source_policy.check(SETTER_CALLS[route])
    assert refusal is not None and refusal.rule == "process-wide", (route, refusal)
    assert "every later" in refusal.message and "the tests' included" in refusal.message, refusal.message


# --- the scoped forms -----------------------------------------------------------------------------

SCOPED_REFUSED = {
    "backend flags called": "import torch\ntorch.backends.cudnn.flags(enabled=False)\n",
    "backend flags kept": "import torch\nf = torch.backends.mkldnn.flags\n",
    "backend flags re-exported": "import torch.nn.functional as F\nF.torch.backends.mkldnn.flags(enabled=False)\n",
    "backend flags imported": "from torch.backends.mkldnn import flags\nflags(enabled=False)\n",
    "mkl verbose called": "import torch\ntorch.backends.mkl.verbose(1)\n",
    "sdpa_kernel called": "from torch.nn.attention import sdpa_kernel, SDPBackend\nsdpa_kernel(SDPBackend.MATH)\n",
    "sdpa_kernel kept": "import torch\nk = torch.nn.attention.sdpa_kernel\n",
    "sdp_kernel called": "import torch\ntorch.backends.cuda.sdp_kernel(enable_math=False)\n",
    "sparse checks enabled": "import torch\ntorch.sparse.check_sparse_tensor_invariants.enable()\n",
    "sparse checks disabled": "from torch.sparse import check_sparse_tensor_invariants as c\nc.disable()\n",
    "sparse checks made, kept": "import torch\nchecks = torch.sparse.check_sparse_tensor_invariants()\n",
    "sparse checks on any object": "def f(obj):\n    obj.check_sparse_tensor_invariants.enable()\n",
}


@pytest.mark.parametrize("route", sorted(SCOPED_REFUSED))
def test_a_scoped_setting_outside_with_is_refused(route: str) -> None:
    refusal = source_policy.check(SCOPED_REFUSED[route])
    assert refusal is not None and refusal.rule == "process-wide", (route, refusal)
    assert "only allowed as a `with` block or a decorator" in refusal.message, refusal.message
    assert "the judge's tests included. Write `with " in refusal.message, refusal.message


ALLOWED = {
    "backend flags in with": "import torch\ndef f(x):\n    with torch.backends.mkldnn.flags(enabled=False):\n        return x\n",
    "cudnn flags in with": "import torch\ndef f(x):\n    with torch.backends.cudnn.flags(enabled=False, benchmark=False):\n        return x\n",
    "sdpa_kernel in with": (
        "import torch\nfrom torch.nn.attention import SDPBackend, sdpa_kernel\n"
        "def f(q):\n    with sdpa_kernel(SDPBackend.MATH):\n        return torch.nn.functional.scaled_dot_product_attention(q, q, q)\n"
    ),
    "sdpa_kernel as a decorator": (
        "import torch\n@torch.nn.attention.sdpa_kernel(torch.nn.attention.SDPBackend.MATH)\ndef f(q):\n    return q\n"
    ),
    "sparse checks in with": "import torch\ndef f(i, v):\n    with torch.sparse.check_sparse_tensor_invariants():\n        return torch.sparse_coo_tensor(i, v)\n",
    "sparse checks as a decorator": "import torch\n@torch.sparse.check_sparse_tensor_invariants()\ndef f(x):\n    return x\n",
    "reading flags": (
        "import torch\ndef f():\n    return (torch.backends.mkldnn.enabled, torch.backends.cuda.matmul.allow_tf32,\n"
        "            torch.backends.mps.is_available(), torch.backends.cpu.get_cpu_capability(),\n"
        "            torch.backends.mha.get_fastpath_enabled(), torch.backends.cuda.math_sdp_enabled(),\n"
        "            getattr(torch.backends.mkldnn, 'enabled'), hasattr(torch.backends, 'mps'))\n"
    ),
    "reading through an import": "from torch.backends import mkldnn\ndef f():\n    return mkldnn.is_available()\n",
    "a flags attribute of another object": "def f(a):\n    return a.flags\n",
    "a device in with": "import torch\ndef f():\n    with torch.device('cpu'):\n        return torch.zeros(2)\n",
    "a device as a value": "import torch\ndef f(x):\n    d = torch.device('cpu')\n    return x.to(d), torch.zeros(1, device=d)\n",
    "the learner's own context manager": (
        "class Timer:\n    def __enter__(self):\n        return self\n    def __exit__(self, *exc):\n        return False\n"
        "def f():\n    with Timer() as t:\n        return t\n"
    ),
    "an exit stack in with": (
        "import contextlib\nimport torch\ndef f():\n    with contextlib.ExitStack() as stack:\n"
        "        stack.enter_context(torch.no_grad())\n        return torch.zeros(1)\n"
    ),
}


@pytest.mark.parametrize("route", sorted(ALLOWED))
def test_reads_and_scoped_forms_stay_allowed(route: str) -> None:
    assert source_policy.check(ALLOWED[route]) is None


# --- contexts entered by hand ---------------------------------------------------------------------

BY_HAND = {
    "a device": "import torch\ntorch.device('meta').__enter__()\n",
    "a device kept": "import torch\nd = torch.device('meta')\nd.__enter__()\n",
    "a device's exit, to pop the judge's mode": "import torch\ntorch.device('cpu').__exit__(None, None, None)\n",
    "grad mode": "import torch\ntorch.no_grad().__enter__()\n",
    "inference mode": "import torch\ntorch.inference_mode().__enter__()\n",
    "autocast": "import torch\ntorch.autocast('cpu').__enter__()\n",
    "backend flags": "import torch\nwith_flags = 0\ntorch.backends.mkldnn.flags(enabled=False).__enter__()\n",
    "through the class": "import torch\ntorch.device.__enter__(torch.device('meta'))\n",
    "constant getattr": "import torch\ngetattr(torch.device('meta'), '__enter__')()\n",
    "a learner's class delegating": (
        "import torch\nclass C:\n    def __enter__(self):\n        return torch.no_grad().__enter__()\n"
    ),
    "asynchronous": "async def f(cm):\n    await cm.__aenter__()\n",
}


@pytest.mark.parametrize("route", sorted(BY_HAND))
def test_a_context_entered_by_hand_is_refused(route: str) -> None:
    refusal = source_policy.check(BY_HAND[route])
    assert refusal is not None, route
    assert refusal.rule in ("context", "process-wide"), (route, refusal)
    if refusal.rule == "context":
        assert "by hand is not allowed: enter a context manager with `with" in refusal.message
