"""Where a warm job's time goes, from outside the sandbox: the benchmarks' side of the sandbox's
job hook (``runner.sandbox.watch``, which the product leaves empty; ``Runner.watch_jobs``).

A :class:`Timeline` keeps when each host-side stage ended and when each record of the job
reached the host, so the in-sandbox stages are measured from outside, without trusting the
sandbox; and the CPU and page faults of the job's cgroup from its hand-over to the end of its
output (the spare's warm-up is not in them). Watching every record costs the host a wake-up per
record, which judging does not pay: a series watched so is for the breakdown, not for the
headline figure. :class:`Watches` is the factory the runner is given; it keeps every watch it
made, in order.
"""

from __future__ import annotations

import threading
import time
from pathlib import Path

from runner.sandbox.cgroups import JobCgroup
from runner.sandbox.watch import JobWatch


def page_faults(group: JobCgroup) -> int:
    """Page faults taken by the group's processes so far (``pgfault`` of its ``memory.stat``)."""
    stat = Path(group.dirs["unified" if group.version == 2 else "memory"], "memory.stat").read_text()
    for line in stat.splitlines():
        key, _, value = line.partition(" ")
        if key == "pgfault":
            return int(value)
    return 0


class Timeline(JobWatch):
    """One job: its stages as ``(name, time.perf_counter())``, in order; with ``counters``, the CPU
    (ms) and page faults of its cgroup from its hand-over on (reading the CPU counter took ~0.3 ms,
    in the stage after the hand-over)."""

    def __init__(self, every_record: bool = True, counters: bool = True) -> None:
        self.every_record = every_record
        self.counters = counters
        self.stages: list[tuple[str, float]] = []
        self.warm_up_asked = True
        self.cpu_ms = 0.0
        self.page_faults: int | None = None
        self._at_hand_over = (0.0, 0)

    def spare_taken(self, warm: bool) -> None:
        self.warm_up_asked = warm

    def stage(self, name: str) -> None:
        self.stages.append((name, time.perf_counter()))

    def running(self, group: JobCgroup) -> None:
        if self.counters:
            self._at_hand_over = (group.cpu_ms(), page_faults(group))

    def finished(self, group: JobCgroup) -> None:
        if self.counters:
            cpu, faults = self._at_hand_over
            self.cpu_ms = group.cpu_ms() - cpu
            self.page_faults = page_faults(group) - faults

    def since(self, started: float) -> list[tuple[str, float]]:
        """The stages as ``(name, ms since started)`` (``started``: ``time.perf_counter()`` just
        before ``Runner.judge``)."""
        return [(name, (at - started) * 1000) for name, at in self.stages]


class Watches:
    """The factory ``Runner.watch_jobs`` takes: a :class:`Timeline` per job, every one kept."""

    def __init__(self, every_record: bool = True, counters: bool = True) -> None:
        self.every_record = every_record
        self.counters = counters
        self.made: list[Timeline] = []
        self._lock = threading.Lock()

    def __call__(self) -> Timeline:
        watch = Timeline(self.every_record, self.counters)
        with self._lock:
            self.made.append(watch)
        return watch

    def last(self) -> Timeline:
        """The watch of the job started last (one job at a time: the one just judged)."""
        with self._lock:
            return self.made[-1]
