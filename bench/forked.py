"""Run a piece of judge code in a forked child, as a spare runs its job, for the tools that
measure that code without the sandbox (``bench/job_faults.py``, ``bench/job_pages.py``); the
runner's tests have their own (``tests/runner/processes.py``)."""

from __future__ import annotations

import gc
import json
import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from runner.engine import job_payload as engine_payload
from runner.format.problem import ProblemFiles
from runner.sandbox import compiled, control, heap, hugepages, warmup
from runner.sandbox.control import read_all
from runner.testing import guard

LIMIT = 1 << 26


def in_fork(work: Callable[[int], Any]) -> tuple[Any, list[dict[str, Any]]]:
    """``work(records_fd)`` in a forked child: (what it returned, JSON-encoded, and decoded
    here; the records it wrote on ``records_fd``, one JSON object a line). Nothing the child
    changes reaches this process."""
    records_r, records_w = os.pipe()
    result_r, result_w = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child: never returns
        try:
            os.close(records_r)
            os.close(result_r)
            os.write(result_w, json.dumps(work(records_w)).encode())
        finally:
            os._exit(0)
    os.close(records_w)
    os.close(result_w)
    try:
        records = read_all(records_r, LIMIT)
        result = read_all(result_r, LIMIT)
    finally:
        os.close(records_r)
        os.close(result_r)
        os.waitpid(pid, 0)
    return json.loads(result), [json.loads(line) for line in records.splitlines()]


def warm_like_zygote(
    events_fd: int, guarded: bool = True, before_freeze: Callable[[], object] = lambda: None
) -> guard.KeySlotGuard | None:
    """Warm this process up much as the zygote does before its first fork (``runner.sandbox.zygote.serve``):
    torch warm, the job's guard sealed around a key slot whose events go to ``events_fd``
    (none where ``guarded`` is false), the garbage collector's objects frozen
    (``before_freeze`` runs just before) and the populated memory in huge pages."""
    warmup.warm_up()
    slotted = guard.KeySlotGuard(control.KEY_BYTES, events_fd) if guarded else None
    gc.collect()
    before_freeze()
    gc.freeze()
    heap.hold_free_chunks()
    hugepages.collapse_self()
    return slotted


def job_payload(problem: ProblemFiles) -> tuple[str, dict[str, Any]]:
    """``problem``'s reference as a job: its files written once to a fresh folder, and the
    payload, with ``tests.py`` compiled for that path as the host compiles it for the sandbox's
    ``/tmp`` (``runner.sandbox.compiled``), so no job compiles it (a spare never does)."""
    workdir = tempfile.mkdtemp()
    for name, text in (("solution.py", problem.solution), ("tests.py", problem.tests)):
        Path(workdir, name).write_text(text)
    tests_code = compiled.compiled_tests(problem.tests, str(Path(workdir, "tests.py")))
    return workdir, engine_payload(problem.solution, problem.tests, problem.entry_point, None, tests_code)
