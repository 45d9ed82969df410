# ruff: noqa: E501  (the sources tables keep one solution per entry)
"""A learner's process-wide torch state against the judge, in the real sandbox (issue #39).

The cases of a job run one after another in one process, so a backend flag, a setter or a context
left entered by one case's code is what the next case's tests run under. The problem here has a
last case that reports that state: without the source policy, each setter changes what it
observes (the threat is real); through the policy, each is refused on the host, with its line,
before anything runs; the scoped forms (`with`, a decorator) work and leave torch's defaults for
the next case. A device context (a torch function mode of torch's own) hides no operation from
the judge's watch. A context left entered by a route the policy cannot read is put back by the judge
at the case's end (``runner.testing.torch_state``), so it never reaches the next case's tests, and the
case that left it fails with a message that names the learner's mistake, not the judge.
"""

from __future__ import annotations

import dataclasses

import pytest

from runner import jobs
from runner.engine import Runner
from runner.format.problem import ProblemFiles
from runner.jobs import Expectations
from runner.records.events import MODIFIED
from runner.verdict import Verdict

NO_LAYER_NORM = "Do not call F.layer_norm: compute the mean and the variance yourself."
TESTS = f'''
import torch

from runner.testing import case, forbid_ops


@case(public=True)
def first(solution):
    return solution.probe()


@case
def watched(solution):
    rules = {{"torch.nn.functional.layer_norm": "{NO_LAYER_NORM}", "aten.native_layer_norm": "{NO_LAYER_NORM}"}}
    with forbid_ops(rules):
        return solution.probe()


@case
def after(solution):
    """The state every later case's tests run under."""
    return [
        str(torch.get_default_dtype()),
        str(torch.zeros(1).device),
        torch.is_grad_enabled(),
        torch.backends.mkldnn.enabled,
        torch.backends.mkldnn.deterministic,
        torch.backends.mha.get_fastpath_enabled(),
        torch.backends.cuda.math_sdp_enabled(),
        torch.backends.cuda.flash_sdp_enabled(),
        torch.backends.cudnn.enabled,
        torch.backends.cuda.matmul.allow_tf32,
        torch.sparse.check_sparse_tensor_invariants.is_enabled(),
    ]
'''
REFERENCE = "def probe():\n    return 0\n"


@pytest.fixture(scope="module")
def observer(runner: Runner, probe: tuple[ProblemFiles, Expectations]) -> tuple[ProblemFiles, Expectations]:
    problem = dataclasses.replace(probe[0], slug="process-wide-state", tests=TESTS, solution=REFERENCE)
    return problem, runner.compute_expectations(problem)


def _in_probe(line: str) -> str:
    return f"import torch\n\n\ndef probe():\n    {line}\n    return 0\n"


# Each changes a process-wide setting inside the entry point (line 5), or at import (line 2).
ATTEMPTS = {
    "a backend flag": _in_probe("torch.backends.mkldnn.enabled = False"),
    "a backend flag through a held module": _in_probe(
        "k = torch.backends.mkldnn\n    k.deterministic = True"
    ),
    "a flag group held as a value": _in_probe("m = torch.backends.cuda.matmul\n    m.allow_tf32 = True"),
    "set_flags": _in_probe("torch.backends.mkldnn.set_flags(False)"),
    "cudnn's set_flags": _in_probe("torch.backends.cudnn.set_flags(False)"),
    "the attention fast path": _in_probe("torch.backends.mha.set_fastpath_enabled(False)"),
    "an attention backend": _in_probe("torch.backends.cuda.enable_math_sdp(False)"),
    "sparse invariants": _in_probe("torch.sparse.check_sparse_tensor_invariants.enable()"),
    "grad mode entered by hand": _in_probe("torch.no_grad().__enter__()"),
    "a device entered at import": "import torch\ntorch.device('meta').__enter__()\n\n\ndef probe():\n    return 0\n",
}


# Contexts entered by hand: the judge puts their state back at each case's boundary (below).
RESET_BY_THE_JUDGE = {"grad mode entered by hand", "a device entered at import"}


@pytest.mark.parametrize("attempt", sorted(ATTEMPTS))
def test_without_the_policy_the_setting_reaches_the_next_cases_tests(
    runner: Runner, observer: tuple[ProblemFiles, Expectations], attempt: str
) -> None:
    """Why the policy refuses them: what the last case's tests run under changes (a setter's), or
    the case that left a context entered fails with what it left (the judge puts it back)."""
    problem, expectations = observer
    result = runner.judge(problem.job(expectations, ATTEMPTS[attempt], "submit"))
    assert result.verdict != Verdict.ACCEPTED, (attempt, result.message)
    after = next(c for c in result.cases if c.name == "after")
    if attempt in RESET_BY_THE_JUDGE:
        _assert_left_state_reported(result, attempt)
    else:
        assert after.status != jobs.CASE_PASSED, (attempt, after.message)


def _assert_left_state_reported(result: jobs.JudgeResult, attempt: str) -> None:
    """The case that left a context entered (the first, for one left at import) fails with the
    learner's finding, the judge is blamed nowhere, and the last case's tests see torch's defaults."""
    assert result.verdict not in (Verdict.ACCEPTED, Verdict.INTERNAL_ERROR), (attempt, result.message)
    messages = [c.message or "" for c in result.cases]
    assert not any(MODIFIED in m for m in messages), (attempt, messages)
    first = result.cases[0]
    assert first.status == jobs.CASE_FAILED, (attempt, first.message)
    assert "was left entered" in (first.message or ""), (attempt, first.message)
    assert "with `with`" in (first.message or ""), (attempt, first.message)
    after = next(c for c in result.cases if c.name == "after")
    assert after.status == jobs.CASE_PASSED, (attempt, after.message)


@pytest.mark.parametrize("attempt", sorted(ATTEMPTS))
def test_through_the_policy_it_is_refused_on_the_host_with_its_line(
    checked_runner: Runner, observer: tuple[ProblemFiles, Expectations], attempt: str
) -> None:
    problem, expectations = observer
    source = ATTEMPTS[attempt]
    line = 2 if "at import" in attempt else 5
    for mode in ("run", "submit"):
        result = checked_runner.judge(problem.job(expectations, source, mode))
        assert result.verdict == Verdict.COMPILE_ERROR, (attempt, result.verdict, result.message)
        assert result.message.startswith(f"Line {line}: "), (attempt, result.message)
        assert "the judge" in result.message or "the tests" in result.message, result.message
        assert all(c.status == jobs.CASE_NOT_RUN and c.line == line for c in result.cases)


HONEST = {
    "a device in with": (
        "import torch\n\n\ndef probe():\n    with torch.device('cpu'):\n        x = torch.zeros(2)\n"
        "    return int(x.sum())\n"
    ),
    "a device in with at import": "import torch\n\nwith torch.device('cpu'):\n    Z = torch.zeros(2)\n\n\ndef probe():\n    return int(Z.sum())\n",
    "backend flags in with": (
        "import torch\n\n\ndef probe():\n    with torch.backends.mkldnn.flags(enabled=False, deterministic=True):\n"
        "        y = torch.nn.functional.conv1d(torch.ones(1, 1, 4), torch.ones(1, 1, 2))\n"
        "    return int(y.sum()) - 6\n"
    ),
    "an attention backend in with": (
        "import torch\nfrom torch.nn.attention import SDPBackend, sdpa_kernel\n\n\ndef probe():\n"
        "    q = torch.ones(1, 2, 3)\n    with sdpa_kernel(SDPBackend.MATH):\n"
        "        out = torch.nn.functional.scaled_dot_product_attention(q, q, q)\n    return int(out.sum()) - 6\n"
    ),
    "an attention backend as a decorator": (
        "import torch\nfrom torch.nn.attention import SDPBackend, sdpa_kernel\n\n\n@sdpa_kernel(SDPBackend.MATH)\n"
        "def probe():\n    q = torch.ones(1, 2, 3)\n"
        "    return int(torch.nn.functional.scaled_dot_product_attention(q, q, q).sum()) - 6\n"
    ),
    "sparse checks in with": (
        "import torch\n\n\ndef probe():\n    with torch.sparse.check_sparse_tensor_invariants():\n"
        "        s = torch.sparse_coo_tensor(torch.tensor([[0, 1]]), torch.tensor([1.0, 2.0]), (2,))\n"
        "    return int(s.to_dense().sum()) - 3\n"
    ),
    "grad mode in with": (
        "import torch\n\n\ndef probe():\n    with torch.no_grad(), torch.set_grad_enabled(False):\n"
        "        x = torch.ones(1, requires_grad=True) * 2\n    return int(x.requires_grad)\n"
    ),
}


@pytest.mark.parametrize("form", sorted(HONEST))
def test_the_scoped_forms_work_and_leave_torchs_defaults_to_the_next_case(
    checked_runner: Runner, observer: tuple[ProblemFiles, Expectations], form: str
) -> None:
    problem, expectations = observer
    result = checked_runner.judge(problem.job(expectations, HONEST[form], "submit"))
    assert result.verdict == Verdict.ACCEPTED, (form, result.message, [c.message for c in result.cases])


HIDING = {
    "inside a device context": (
        "import torch\n\n\ndef probe():\n    with torch.device('cpu'):\n"
        "        torch.nn.functional.layer_norm(torch.ones(2, 3), (3,))\n    return 0\n"
    ),
    "nested device contexts, and one at import": (
        "import torch\n\nwith torch.device('cpu'):\n    pass\n\n\ndef probe():\n    with torch.device('cpu'):\n"
        "        with torch.device('cpu'):\n            torch.nn.functional.layer_norm(torch.ones(2, 3), (3,))\n"
        "    return 0\n"
    ),
}


@pytest.mark.parametrize("route", sorted(HIDING))
def test_a_device_context_hides_no_operation_from_the_judge(
    checked_runner: Runner, observer: tuple[ProblemFiles, Expectations], route: str
) -> None:
    """torch's device context is a function mode above the judge's: it passes every call on, and the
    judge's watch sees it — the forbidden call is reported with its rule's message."""
    problem, expectations = observer
    result = checked_runner.judge(problem.job(expectations, HIDING[route], "submit"))
    assert result.verdict != Verdict.ACCEPTED, (route, result.message)
    watched = next(c for c in result.cases if c.name == "watched")
    assert NO_LAYER_NORM in (watched.message or ""), (route, watched.message)
    others = [c for c in result.cases if c.name != "watched"]
    assert all(c.status == jobs.CASE_PASSED for c in others), [(c.name, c.message) for c in others]


# Routes the policy cannot read: an exit stack never closed (what `with` would close) or a generator
# suspended inside a `with` and kept, at import or inside a case. The judge reads torch's state at each
# case's start and end (and a check's end), puts it back, and reports what was left.
def _left_in_case(context: str) -> str:
    return (
        "import contextlib\nimport torch\n\nSTACK = contextlib.ExitStack()\n\n\ndef probe():\n"
        f"    STACK.enter_context({context})\n    return 0\n"
    )


def _left_at_import(context: str) -> str:
    return (
        f"import contextlib\nimport torch\n\nSTACK = contextlib.ExitStack()\nSTACK.enter_context({context})\n\n\n"
        "def probe():\n    return 0\n"
    )


LEFT_OPEN = {
    "at import, on the meta device": (_left_at_import("torch.device('meta')"), "DeviceContext"),
    "inside a case": (_left_in_case("torch.device('cpu')"), "DeviceContext"),
    "grad mode inside a case": (_left_in_case("torch.no_grad()"), "torch.no_grad()"),
    "grad mode at import": (_left_at_import("torch.no_grad()"), "torch.no_grad()"),
    "inference mode inside a case": (_left_in_case("torch.inference_mode()"), "torch.inference_mode()"),
    "autocast at import": (_left_at_import("torch.autocast('cpu')"), "torch.autocast('cpu')"),
    "autocast inside a case": (_left_in_case("torch.autocast('cpu')"), "torch.autocast('cpu')"),
    "a forward-AD level inside a case": (
        _left_in_case("torch.autograd.forward_ad.dual_level()"),
        "forward_ad.dual_level()",
    ),
    "a generator suspended inside with": (
        "import torch\n\nKEEP = []\n\n\ndef _held():\n    with torch.no_grad():\n        yield\n\n\n"
        "def probe():\n    held = _held()\n    next(held)\n    KEEP.append(held)\n    return 0\n",
        "torch.no_grad()",
    ),
}


@pytest.mark.parametrize("route", sorted(LEFT_OPEN))
def test_a_context_left_open_by_a_route_the_policy_cannot_read_is_put_back_and_reported(
    checked_runner: Runner, observer: tuple[ProblemFiles, Expectations], route: str
) -> None:
    problem, expectations = observer
    source, named = LEFT_OPEN[route]
    result = checked_runner.judge(problem.job(expectations, source, "submit"))
    _assert_left_state_reported(result, route)
    assert named in (result.cases[0].message or ""), (route, result.cases[0].message)
    where = "when solution.py was imported" if "at import" in route else "at the end of case first"
    assert where in (result.cases[0].message or ""), (route, result.cases[0].message)


def test_a_device_context_left_inside_a_check_is_the_learners_finding(
    checked_runner: Runner, observer: tuple[ProblemFiles, Expectations]
) -> None:
    """Left entered inside a check of operations (the `watched` case), a device context sits above the
    judge's mode when the check ends: reported as the learner's, never as a modified judge."""
    problem, expectations = observer
    result = checked_runner.judge(problem.job(expectations, _left_in_case("torch.device('cpu')"), "submit"))
    watched = next(c for c in result.cases if c.name == "watched")
    assert watched.status == jobs.CASE_FAILED, watched.message
    assert "DeviceContext" in (watched.message or "") and "inside a check" in (watched.message or "")


# Without the policy (the layer below it alone): replacing what torch's state is read and written
# with, in every place the learner's code can reach, before leaving the context entered.
DISABLE = {
    "torch's readers and setters replaced": (
        "import contextlib\nimport torch\n\nSTACK = contextlib.ExitStack()\n\n\ndef probe():\n"
        "    for owner in (torch, torch._C, torch.autograd.grad_mode):\n"
        "        for name in ('is_grad_enabled', '_set_grad_enabled', 'set_grad_enabled'):\n"
        "            try:\n                setattr(owner, name, lambda *a: True)\n"
        "            except Exception:\n                pass\n"
        "    STACK.enter_context(torch.no_grad())\n    return 0\n"
    ),
    "the device module's state rewritten": (
        "import contextlib\nimport torch\nimport torch.utils._device as d\n\nSTACK = contextlib.ExitStack()\n\n\n"
        "def probe():\n    STACK.enter_context(torch.device('meta'))\n"
        "    try:\n        d.CURRENT_DEVICE = None\n    except Exception:\n        pass\n    return 0\n"
    ),
    "the judge's modules reached": (
        "import contextlib\nimport sys\nimport torch\n\nSTACK = contextlib.ExitStack()\n\n\ndef probe():\n"
        "    for name in ('runner.testing.torch_state', 'runner.testing.guard'):\n"
        "        try:\n            m = sys.modules[name]\n            m.STRIP = m.BASE = None\n"
        "            m._active = None\n        except Exception:\n            pass\n"
        "    STACK.enter_context(torch.no_grad())\n    return 0\n"
    ),
}


@pytest.mark.parametrize("attempt", sorted(DISABLE))
def test_the_reset_cannot_be_turned_off(
    runner: Runner, observer: tuple[ProblemFiles, Expectations], attempt: str
) -> None:
    problem, expectations = observer
    result = runner.judge(problem.job(expectations, DISABLE[attempt], "submit"))
    assert result.verdict != Verdict.ACCEPTED, (attempt, result.message)
    after = next(c for c in result.cases if c.name == "after")
    assert after.status == jobs.CASE_PASSED, (attempt, after.message)


NESTED_TESTS = '''
import torch

from runner.testing import case, forbid_ops, observe_peak_memory


@case(public=True)
def measured(solution):
    """The tests' own dispatch mode around a check: below the check's mark, never the learner's."""
    with observe_peak_memory() as peak, forbid_ops({"torch.cdist": "Do not call torch.cdist."}):
        value = solution.probe()
    return [value, peak.peak_bytes >= 0]


@case
def after(solution):
    return [torch.is_grad_enabled(), torch._C._len_torch_function_stack(), str(torch.zeros(1).device)]
'''


@pytest.mark.parametrize(
    ("source", "accepted"),
    [(REFERENCE, True), (HONEST["a device in with"], True), (_left_in_case("torch.device('cpu')"), False)],
)
def test_the_tests_own_modes_around_a_check_are_never_the_learners(
    runner: Runner, probe: tuple[ProblemFiles, Expectations], source: str, accepted: bool
) -> None:
    problem = dataclasses.replace(
        probe[0], slug="process-wide-nested", tests=NESTED_TESTS, solution=REFERENCE
    )
    expectations = runner.compute_expectations(problem)
    result = runner.judge(problem.job(expectations, source, "submit"))
    if accepted:
        assert result.verdict == Verdict.ACCEPTED, (result.message, [c.message for c in result.cases])
    else:
        measured = next(c for c in result.cases if c.name == "measured")
        assert measured.status == jobs.CASE_FAILED and "DeviceContext" in (measured.message or ""), (
            measured.message
        )
        after = next(c for c in result.cases if c.name == "after")
        assert after.status == jobs.CASE_PASSED, after.message
