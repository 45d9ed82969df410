"""check_call against a learner who patches what the check uses from solution.py, in the real
sandbox: the torch primitives the check reads inputs and outputs through (``Tensor.clone``,
``nonzero``, ``view``, ``reshape``, ``untyped_storage``, …), reached through the tensor's own class,
which the source policy cannot tell from any other name, and (with ``sys`` allowed) the check's own
module. Two layers hold: torch's tensor classes are immutable once the guard is in force (the patch
raises ``TypeError``), and the check captured every primitive and helper before the learner's code
was imported (sealed constants), so a write or an alias is still reported with the rule."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from runner.engine import Runner
from runner.format.problem import load_problem_dir
from tests.runner.checks_support import failed_message
from tests.runner.conftest import FIXTURES

CONTAINER = FIXTURES / "redteam" / "container-output"
CASE = "new_tensors_inside_containers"
RULE = "Breaks rule new-tensors (Leave `x` unchanged: every tensor returned is a new one.)"

# Each patch makes a write to `x` (through `.data`, which moves no version counter) or an alias of
# it in the output invisible to a check that looked the primitive up at call time.
PATCHES = {
    "nonzero finds nothing": "T.nonzero = lambda self, *a, **k: T.new_zeros(self, (0, 1), dtype=torch.long)",
    "clone returns the tensor itself": "T.clone = lambda self, *a, **k: self",
    "detach returns a fresh zero tensor": "T.detach = lambda self: torch.zeros(3)",
    "reshape returns a constant": "T.reshape = lambda self, *a: torch.zeros(6)",
    "view returns a constant": "T.view = lambda self, *a: torch.zeros(6, dtype=torch.int32)",
    "numel says empty": "T.numel = lambda self: 0",
    "item returns a constant": "T.item = lambda self: 0",
    "storage has another address": (
        "real = T.untyped_storage\n    T.untyped_storage = lambda self: real(self.clone())"
    ),
    "is_floating_point says no": "T.is_floating_point = lambda self: False",
}
WRITE = "x.data.mul_(2)\n"


def _judge(runner: Runner, code: str):  # type: ignore[no-untyped-def]
    problem = load_problem_dir(CONTAINER)
    expectations = runner.compute_expectations(problem)
    return runner.judge(runner.job_for(problem, expectations, code, "submit"))


def _solution(patch: str, body: str, output: str) -> str:
    return (
        "import torch\n\n"
        "def split_scale(x):\n"
        "    T = type(x)\n"
        f"    {patch}\n"
        f"    out = {output}\n"
        f"    {body}"
        "    return out\n"
    )


ALIASED = '{"scaled": 2 * x, "parts": [x[0], x[1] + 1]}'
NEW = '{"scaled": 2 * x, "parts": [x[0] + 1, x[1] + 1]}'


def test_the_solution_is_accepted_when_it_keeps_the_rule(runner: Runner) -> None:
    """So the checks below can fail: the solution's shape, without the patch and the write, passes."""
    result = _judge(runner, _solution("T.numel(x)", "pass\n", NEW))
    assert result.accepted, result


REFUSED = "cannot set"  # CPython's TypeError for an immutable type's attribute
WATCHED = "was changed while your code ran"  # a watched class (nn.Parameter): runner.testing.class_versions


def _rejected(result) -> str:  # type: ignore[no-untyped-def]
    """The check's case did not pass: it failed with the rule, or the patch itself was refused."""
    assert not result.accepted, result
    found = next(c for c in result.cases if c.name == CASE)
    assert found.status in ("failed", "error"), (found.status, found.message)
    assert RULE in found.message or REFUSED in found.message or WATCHED in found.message, found.message
    return found.message


@pytest.mark.parametrize("patch", sorted(PATCHES))
def test_a_write_through_data_is_seen_whatever_the_patch(runner: Runner, patch: str) -> None:
    _rejected(_judge(runner, _solution(PATCHES[patch], WRITE, NEW)))


@pytest.mark.parametrize("patch", sorted(PATCHES))
def test_an_aliased_output_is_seen_whatever_the_patch(runner: Runner, patch: str) -> None:
    _rejected(_judge(runner, _solution(PATCHES[patch], "pass\n", ALIASED)))


@pytest.mark.parametrize(
    ("route", "expected"),
    [
        ("type(x).clone = lambda self: self", "immutable type"),
        ("setattr(type(x), 'clone', lambda self: self)", "immutable type"),
        # nn.Parameter is watched, not immutable (lazy modules assign instances' __class__ to it)
        ("torch.nn.Parameter.detach = lambda self: self", "torch.nn.parameter.Parameter " + WATCHED),
        ("type(x.untyped_storage()).data_ptr = lambda self: 0", "immutable type"),
    ],
)
def test_torchs_tensor_classes_cannot_be_changed_from_solution_py(
    runner: Runner, route: str, expected: str
) -> None:
    code = f"import torch\n\ndef split_scale(x):\n    {route}\n    return {NEW}\n"
    result = _judge(runner, code)
    message = _rejected(result)
    assert expected in message, message


# Defence in depth: the policy off (no problem can allow `sys` and `gc`), so solution.py reaches the
# judge's modules through `sys.modules`.
DEEP_PATCHES = {
    "the check's helpers, in its module": (
        'm = vars(sys.modules["runner.testing.checks.integrity"])\n'
        "    m['index_of'] = lambda *a: None\n"
        "    m['_first_change'] = lambda *a: (None, None, None)\n"
        "    m['_version_of'] = lambda: (lambda t: 0)\n"
        "    m['_shares_storage'] = lambda *a: False"
    ),
    "the check's helper module": 'vars(sys.modules["runner.testing.checks.arguments"])["index_of"] = len',
    "the exported check": (
        'vars(sys.modules["runner.testing"])["check_call"] = len\n'
        '    vars(sys.modules["runner.testing.checks.integrity"])["check_call"] = len'
    ),
    "torch's functions, through sys.modules": (
        'vars(sys.modules["torch"])["view_as_real"] = lambda t: t\n'
        '    vars(sys.modules["torch"])["int32"] = torch.float32'
    ),
}


@pytest.fixture(scope="module")
def deep_problem(tmp_path_factory: pytest.TempPathFactory) -> Path:
    # No problem can allow `sys` any more (runner.judging.source_rules.NEVER_ALLOWED_NAMES); the
    # session's runner judges without the policy, which is what reaching sys.modules needs here.
    copy = tmp_path_factory.mktemp("deep") / "container-output"
    shutil.copytree(CONTAINER, copy)
    return copy


def _judge_deep(runner: Runner, problem_dir: Path, code: str):  # type: ignore[no-untyped-def]
    problem = load_problem_dir(problem_dir)
    expectations = runner.compute_expectations(problem)
    return runner.judge(runner.job_for(problem, expectations, code, "submit"))


def test_with_sys_allowed_the_patches_alone_keep_an_honest_solution_accepted(
    runner: Runner, deep_problem: Path
) -> None:
    """So the checks below can fail: reaching the modules is not itself what fails a solution."""
    code = "import sys\n" + _solution('sys.modules["runner.testing.checks.arguments"]', "pass\n", NEW)
    assert _judge_deep(runner, deep_problem, code).accepted


@pytest.mark.parametrize("patch", sorted(DEEP_PATCHES))
def test_with_sys_allowed_patching_the_judges_modules_changes_nothing(
    runner: Runner, deep_problem: Path, patch: str
) -> None:
    for body, output in ((WRITE, NEW), ("pass\n", ALIASED)):
        code = "import sys\n" + _solution(DEEP_PATCHES[patch], body, output)
        message = failed_message(_judge_deep(runner, deep_problem, code), CASE)
        assert RULE in message, message
