"""Per-job control groups: resident-memory limit, process limit, CPU accounting, kill-all.

PyTorch cannot even be imported under an address-space limit (RLIMIT_AS), so memory is
limited as *resident* memory with the memory controller. cgroup v1 (this machine) and v2
(most container hosts) are both supported. The sandbox sees only the ``torchdrill``
sub-tree, bind-mounted at ``/cg/<controller>``, and only long enough to join its own job
group; it is unmounted before any learner code runs.
"""

from __future__ import annotations

import contextlib
import os
import signal
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path("/sys/fs/cgroup")
GROUP = "torchdrill"
SANDBOX_MOUNT = "/cg"


class CgroupUnavailable(RuntimeError):
    pass


def _write(path: Path, value: str) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_NOFOLLOW)
    try:
        os.write(fd, value.encode())
    finally:
        os.close(fd)


def _read(path: Path) -> str:
    try:
        return path.read_text()
    except OSError:
        return ""


@dataclass
class JobCgroup:
    name: str
    dirs: dict[str, Path]  # controller -> host directory
    version: int

    def sandbox_procs_files(self) -> list[str]:
        """The ``cgroup.procs`` paths as the sandbox sees them (joined by writing "0")."""
        if self.version == 2:
            return [f"{SANDBOX_MOUNT}/unified/{self.name}/cgroup.procs"]
        return [f"{SANDBOX_MOUNT}/{c}/{self.name}/cgroup.procs" for c in self.dirs]

    def pids(self) -> list[int]:
        path = self.dirs["pids" if self.version == 1 else "unified"] / "cgroup.procs"
        return [int(x) for x in _read(path).split()]

    def kill_all(self, wait: bool = True) -> None:
        if self.version == 2 and (self.dirs["unified"] / "cgroup.kill").exists():
            with contextlib.suppress(OSError):
                _write(self.dirs["unified"] / "cgroup.kill", "1")
        for _ in range(200):
            pids = self.pids()
            if not pids:
                return
            for pid in pids:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
            if not wait:
                return
            time.sleep(0.002)

    def oom_killed(self) -> bool:
        if self.version == 2:
            events = _read(self.dirs["unified"] / "memory.events")
        else:
            events = _read(self.dirs["memory"] / "memory.oom_control")
        for line in events.splitlines():
            key, _, value = line.partition(" ")
            if key == "oom_kill" and value.strip() not in ("", "0"):
                return True
        return False

    def cpu_ms(self) -> float:
        if self.version == 2:
            for line in _read(self.dirs["unified"] / "cpu.stat").splitlines():
                if line.startswith("usage_usec"):
                    return int(line.split()[1]) / 1000
            return 0.0
        usage = _read(self.dirs["cpuacct"] / "cpuacct.usage").strip()
        return int(usage) / 1e6 if usage else 0.0

    def peak_memory_mb(self) -> float:
        name = "memory.peak" if self.version == 2 else "memory.max_usage_in_bytes"
        raw = _read(self.dirs["unified" if self.version == 2 else "memory"] / name).strip()
        return int(raw) / 2**20 if raw.isdigit() else 0.0

    def set_limits(self, memory_mb: int, max_processes: int) -> None:
        limit = str(memory_mb * 2**20)
        if self.version == 1:
            memory = self.dirs["memory"]
            swap = memory / "memory.memsw.limit_in_bytes"
            # memsw (memory + swap) must never be below the memory limit: order the writes.
            order = ["memory.limit_in_bytes", "memory.memsw.limit_in_bytes"]
            if swap.exists() and int(_read(memory / "memory.limit_in_bytes") or 0) < int(limit):
                order.reverse()
            for name in order:
                if (memory / name).exists():
                    _write(memory / name, limit)
            with contextlib.suppress(OSError):
                _write(memory / "memory.swappiness", "0")
            _write(self.dirs["pids"] / "pids.max", str(max_processes))
        else:
            unified = self.dirs["unified"]
            _write(unified / "memory.max", limit)
            with contextlib.suppress(OSError):
                _write(unified / "memory.swap.max", "0")
            _write(unified / "pids.max", str(max_processes))

    def remove(self) -> None:
        self.kill_all()
        for path in self.dirs.values():
            for _ in range(50):
                try:
                    os.rmdir(path)
                    break
                except FileNotFoundError:
                    break
                except OSError:
                    time.sleep(0.005)


class CgroupTree:
    """The ``torchdrill`` parent group on the host, under which each job gets its own."""

    V1_CONTROLLERS = ("memory", "pids", "cpuacct")

    def __init__(self, root: Path = ROOT) -> None:
        self.root = root
        if all((root / c / "cgroup.procs").exists() for c in self.V1_CONTROLLERS):
            self.version = 1
            self.parents = {c: root / c / GROUP for c in self.V1_CONTROLLERS}
        elif (root / "cgroup.controllers").exists():
            self.version = 2
            self.parents = {"unified": root / GROUP}
        else:
            raise CgroupUnavailable(
                f"no usable cgroup hierarchy under {root}: the runner needs the memory and pids "
                "controllers (cgroup v1) or cgroup v2 to limit resident memory and processes"
            )
        try:
            for path in self.parents.values():
                path.mkdir(exist_ok=True)
            if self.version == 2:
                wanted = {"memory", "pids", "cpu"}
                available = set(_read(root / "cgroup.controllers").split())
                missing = wanted - available
                if missing:
                    raise CgroupUnavailable(f"cgroup v2 lacks controllers: {', '.join(sorted(missing))}")
                _write(root / "cgroup.subtree_control", " ".join(f"+{c}" for c in sorted(wanted)))
                _write(
                    self.parents["unified"] / "cgroup.subtree_control",
                    " ".join(f"+{c}" for c in sorted(wanted)),
                )
        except PermissionError as exc:
            raise CgroupUnavailable(
                f"cannot create cgroups under {root}: {exc} (the runner needs root)"
            ) from exc

    def sandbox_binds(self) -> list[tuple[str, str]]:
        """(host path, sandbox path) pairs to bind read-write into the sandbox."""
        return [(str(p), f"{SANDBOX_MOUNT}/{c}") for c, p in self.parents.items()]

    def create(self, name: str, memory_mb: int, max_processes: int) -> JobCgroup:
        dirs = {c: p / name for c, p in self.parents.items()}
        for path in dirs.values():
            path.mkdir()
        group = JobCgroup(name=name, dirs=dirs, version=self.version)
        try:
            group.set_limits(memory_mb, max_processes)
        except OSError:
            group.remove()
            raise
        return group

    def sweep(self) -> None:
        """Remove job groups left behind by runners that died (group names carry the owner pid)."""
        for parent in self.parents.values():
            for child in parent.iterdir():
                owner = child.name.split("-")[1] if child.name.count("-") >= 2 else ""
                if not child.is_dir() or (owner.isdigit() and os.path.exists(f"/proc/{owner}")):
                    continue
                dirs = {k: p / child.name for k, p in self.parents.items()}
                JobCgroup(child.name, dirs, self.version).remove()
