"""Seeding torch skips the devices this machine does not have (runner.sandbox.seeding
.skip_absent_accelerators), on the torch release it was checked for only: in the real sandbox,
and its fallback on another release."""

from __future__ import annotations

import ast
import subprocess
import sys
import textwrap

import torch

from runner.sandbox import seeding
from tests.runner.conftest import JudgeFn
from tests.runner.processes import in_fork

COUNT_STACKS = textwrap.dedent("""
    import traceback
    import torch

    def stacks_recorded_by_manual_seed():
        recorded = []
        format_stack = traceback.format_stack
        # Through the namespace: the judge's modules are read-only to attribute writes in a job
        # (runner.testing.frozen_modules); this fixture's runner checks no source policy.
        vars(traceback)["format_stack"] = lambda *a, **k: recorded.append(1) or format_stack(*a, **k)
        try:
            torch.manual_seed(0)
        finally:
            vars(traceback)["format_stack"] = format_stack
        return len(recorded)
""").lstrip()


def test_torch_on_its_own_records_a_stack_per_absent_device_when_seeding() -> None:
    # A fresh interpreter, as torch comes: so the check below can fail.
    code = COUNT_STACKS + "print(stacks_recorded_by_manual_seed())\n"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=99)
    assert int(out.stdout) > 0


def test_a_job_s_manual_seed_records_no_stack_for_absent_devices(judge_probe: JudgeFn) -> None:
    # Fails if the zygote fell back to torch's own device seeding (another release, a renamed
    # function): the fast path is what a job runs.
    src = COUNT_STACKS + textwrap.dedent("""
        def probe():
            stacks = stacks_recorded_by_manual_seed()
            torch.manual_seed(7)
            first = torch.rand(3).tolist()
            torch.manual_seed(7)
            return [stacks, first == torch.rand(3).tolist()]
    """)
    result = judge_probe(src)
    assert ast.literal_eval(str(result.cases[0].actual)) == [0, True]  # and the CPU generator is seeded


def _in_a_fork_after_skipping(version: str | None) -> dict[str, object]:
    """In a forked child (this process keeps torch as it is): ``skip_absent_accelerators`` with
    torch's version reading ``version`` (its own if None), then the stacks ``manual_seed`` records."""

    def child(_records: int) -> dict[str, object]:
        if version is not None:
            torch.__version__ = version  # type: ignore[assignment]
        skipped = seeding.skip_absent_accelerators()
        namespace: dict[str, object] = {}
        exec(COUNT_STACKS, namespace)
        return {"skipped": skipped, "stacks": namespace["stacks_recorded_by_manual_seed"]()}  # type: ignore[operator]

    seen: dict[str, object] = in_fork(child)[0]
    return seen


def test_on_the_release_it_was_checked_for_seeding_records_no_stack() -> None:
    assert _in_a_fork_after_skipping(None) == {"skipped": True, "stacks": 0}


def test_on_a_torch_release_it_was_not_checked_for_torch_seeds_as_it_does() -> None:
    seen = _in_a_fork_after_skipping("2.99.0")
    assert seen["skipped"] is False
    assert isinstance(seen["stacks"], int) and seen["stacks"] > 0  # nothing replaced: the safe fallback
