"""Run a piece of judge code in a forked child, as a spare runs its job, for the tools that
measure or test that code without the sandbox (``scripts/job-faults.py``, the guard's tests)."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from typing import Any

from runner.zygote import read_all

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
