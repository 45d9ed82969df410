"""Host-side checks shared by the runner's tests."""

from __future__ import annotations

import os
import time

from runner.sandbox.host import UID_BASE, UID_SPAN


def sandbox_processes() -> list[int]:
    """Host pids running as any sandbox uid: must be empty once a job is over."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/status") as fh:
                for line in fh:
                    if line.startswith("Uid:"):
                        uid = int(line.split()[1])
                        if UID_BASE <= uid < UID_BASE + UID_SPAN:
                            found.append(int(entry))
                        break
        except OSError:
            continue
    return found


def wait_no_sandbox_processes(timeout_s: float = 5.0) -> list[int]:
    deadline = time.monotonic() + timeout_s
    left = sandbox_processes()
    while left and time.monotonic() < deadline:
        time.sleep(0.05)
        left = sandbox_processes()
    return left
