"""What the warm pool costs the host, read from ``/proc``: its processes, their memory and CPU.

Used by the benchmarks (``python -m bench.judge``, ``python -m bench.web``), never on the
judging path. The pool is the bubblewrap process of a :class:`runner.sandbox.host.Sandbox` and its
descendants: bubblewrap's init, the zygote, the spares waiting for a job and the jobs running.
"""

from __future__ import annotations

import os
from dataclasses import dataclass


@dataclass(frozen=True)
class PoolMemory:
    processes: int
    rss_mb: float  # counts every shared page once per process: torch's pages many times over
    pss_mb: float  # shared pages split between the processes that map them: the real total
    anon_huge_mb: float = (
        0.0  # mapped as transparent huge pages (runner/sandbox/hugepages.py), counted like RSS
    )

    def describe(self) -> str:
        """One line for the benchmarks' output."""
        return (
            f"warm pool: {self.processes} processes (bubblewrap, zygote, spares), RSS {self.rss_mb:.0f} MB "
            f"(shared pages counted in each), PSS {self.pss_mb:.0f} MB, in huge pages "
            f"{self.anon_huge_mb:.0f} MB (RSS)"
        )


def _stat_fields(pid: int) -> list[str]:
    with open(f"/proc/{pid}/stat") as fh:
        return fh.read().rsplit(")", 1)[1].split()


def descendants(root: int) -> list[int]:
    """``root`` and every process below it (scanning ``/proc``: no ``children`` files here)."""
    parents: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                parents[int(entry)] = int(_stat_fields(int(entry))[1])
            except (OSError, IndexError, ValueError):
                continue
    found, frontier = [root], [root]
    while frontier:
        parent = frontier.pop()
        children = [pid for pid, ppid in parents.items() if ppid == parent]
        found += children
        frontier += children
    return found


def memory(pids: list[int]) -> PoolMemory:
    rss = pss = huge = 0
    counted = 0
    for pid in pids:
        try:
            with open(f"/proc/{pid}/smaps_rollup") as fh:
                lines = fh.read().splitlines()
        except OSError:
            continue  # it ended meanwhile
        counted += 1
        for line in lines:
            key, _, rest = line.partition(":")
            if key == "Rss":
                rss += int(rest.split()[0])
            elif key == "Pss":
                pss += int(rest.split()[0])
            elif key == "AnonHugePages":
                huge += int(rest.split()[0])
    return PoolMemory(processes=counted, rss_mb=rss / 1024, pss_mb=pss / 1024, anon_huge_mb=huge / 1024)


def cpu_seconds(pid: int) -> float:
    """CPU time of ``pid`` and of its children that it has reaped (user + system)."""
    try:
        fields = _stat_fields(pid)
    except OSError:
        return 0.0
    return sum(int(x) for x in fields[11:15]) / os.sysconf("SC_CLK_TCK")


def tree_cpu_seconds(root: int) -> float:
    """CPU time of a process tree so far: its live processes and every process they reaped."""
    return sum(cpu_seconds(pid) for pid in descendants(root))


def pool_memory(pid: int | None) -> PoolMemory:
    """Resident memory of a runner's warm pool (``Runner.sandbox_pid()``: zygote, spares, jobs)."""
    return memory(descendants(pid)) if pid is not None else PoolMemory(0, 0.0, 0.0)


def pool_cpu_seconds(pid: int | None) -> float:
    """CPU time a runner's sandbox processes used so far (finished jobs included)."""
    return tree_cpu_seconds(pid) if pid is not None else 0.0
