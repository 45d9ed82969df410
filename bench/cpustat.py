"""The whole machine's CPU time, from ``/proc/stat``: the budget a verdict's cost is held against.

The benchmarks measure the CPU of the processes they know (the web process, the sandbox's, the
learners'); the machine's own counters also hold what those miss: the kernel's threads working
for them (freeing a job's memory cgroup, RCU), and anything else that runs. A rate of verdicts is
bound by it: ``cpus`` CPUs busy all the time give at most ``cpus * 1000 / ms`` verdicts/s when a
verdict costs the machine ``ms`` of CPU (:func:`ceiling_per_s`).

Used by ``python -m bench.judge`` and ``python -m bench.web``, never on the judging path.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

STAT = "/proc/stat"


@dataclass(frozen=True)
class CpuTimes:
    """Seconds summed over every CPU since boot."""

    busy_s: float  # user, nice, system, irq, softirq (a guest's time is inside user)
    idle_s: float  # idle and iowait
    steal_s: float  # the hypervisor ran something else while this machine wanted to run

    def __sub__(self, other: CpuTimes) -> CpuTimes:
        return CpuTimes(self.busy_s - other.busy_s, self.idle_s - other.idle_s, self.steal_s - other.steal_s)


def parse(text: str, ticks_per_s: int) -> CpuTimes:
    """The machine-wide ``cpu`` line of ``/proc/stat`` (its first), in seconds.

    Kernels before 2.6.33 give fewer columns: the missing ones count as 0. Raises ``ValueError``
    when there is no ``cpu`` line.
    """
    for line in text.splitlines():
        fields = line.split()
        if fields and fields[0] == "cpu":
            values = [int(v) for v in fields[1:9]] + [0] * (8 - len(fields[1:9]))
            user, nice, system, idle, iowait, irq, softirq, steal = values
            return CpuTimes(
                busy_s=(user + nice + system + irq + softirq) / ticks_per_s,
                idle_s=(idle + iowait) / ticks_per_s,
                steal_s=steal / ticks_per_s,
            )
    raise ValueError("no machine-wide cpu line in /proc/stat")


def read() -> CpuTimes:
    with open(STAT) as fh:
        return parse(fh.read(), os.sysconf("SC_CLK_TCK"))


def busy_share(per_s: float, cpu_ms_per_verdict: float, cpus: int) -> float:
    """The share of ``cpus`` CPUs kept busy by ``per_s`` verdicts a second costing
    ``cpu_ms_per_verdict`` each (1.0: all of the time; the rest idled)."""
    return per_s * cpu_ms_per_verdict / (cpus * 1000) if cpus > 0 else 0.0


def ceiling_per_s(cpu_ms_per_verdict: float, cpus: int) -> float:
    """The most verdicts/s ``cpus`` CPUs can give when each verdict costs ``cpu_ms_per_verdict``."""
    return cpus * 1000 / cpu_ms_per_verdict if cpu_ms_per_verdict > 0 else float("inf")
