"""Per-job control groups: resident-memory limit, process limit, CPU accounting and weight, kill-all.

PyTorch cannot even be imported under an address-space limit (RLIMIT_AS), so memory is
limited as *resident* memory with the memory controller. cgroup v1 (this machine) and v2
(most container hosts) are both supported. The sandbox sees only the ``torchdrill``
sub-tree, bind-mounted at ``/cg/<controller>``, and only long enough to join its own job
group; it is unmounted before any learner code runs.

Each job group is a CPU scheduling group of its own too (the ``cpu`` controller): its processes
compete for the CPU as one, whatever sessions they start (with the kernel's autogroups, a process
in no CPU group gets a share of its own for each session), and a spare still warming up runs with
its group at idle priority (:meth:`JobCgroup.idle_setting`, ``runner.sandbox.warmup.warm_spare``).
"""

from __future__ import annotations

import contextlib
import errno
import functools
import os
import signal
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from runner.sandbox import syscalls

ROOT = Path("/sys/fs/cgroup")
GROUP = "torchdrill"
SANDBOX_MOUNT = "/cg"
# cgroup v2 inside a container: the processes that were in the container's root group move here,
# so that the root may hand controllers down ("no internal processes" rule).
SUPERVISOR = "supervisor"


class CgroupUnavailable(RuntimeError):
    pass


def _write(path: Path | str, value: str) -> None:
    syscalls.write_control(path, value.encode())


def _read(path: Path | str) -> str:
    """A control file's text, or "" where it cannot be read."""
    try:
        return syscalls.read_control(path)
    except OSError:
        return ""


def usable_cpus(root: Path = ROOT) -> int:
    """How many CPUs this process's jobs can keep busy: those it may run on, fewer if the CPU
    quota of the cgroup tree it sees (a container's, under cgroup namespaces) is smaller
    (cgroup v2 ``cpu.max``, v1 ``cpu.cfs_quota_us`` / ``cpu.cfs_period_us``), rounded up."""
    cpus = len(os.sched_getaffinity(0))
    quota, period = "max", ""
    if fields := _read(root / "cpu.max").split():
        quota, period = fields[0], fields[-1]
    elif quota_v1 := _read(root / "cpu" / "cpu.cfs_quota_us").strip():
        quota, period = quota_v1, _read(root / "cpu" / "cpu.cfs_period_us").strip()
    with contextlib.suppress(ValueError, ZeroDivisionError):
        if quota not in ("max", "-1"):
            cpus = min(cpus, -(-int(quota) // int(period)))
    return max(1, cpus)


def pid_namespace() -> str:
    """This process's pid namespace (an inode number): pids mean something only inside it."""
    return _pid_namespace_of(os.getpid())


@functools.lru_cache(maxsize=4)
def _pid_namespace_of(pid: int) -> str:
    """A process never changes its own pid namespace: read once per process (keyed by pid, so a
    forked child reads its own), not once per job group named."""
    return str(os.stat("/proc/self/ns/pid").st_ino)


def job_group_name(job_id: str) -> str:
    """``job-<pid namespace>-<owner pid>-<job id>``: what :meth:`CgroupTree.sweep` reads back."""
    return f"job-{pid_namespace()}-{os.getpid()}-{job_id}"


def zygote_group_name(sandbox_id: str) -> str:
    """``zygote-<pid namespace>-<owner pid>-<sandbox id>``, read back as a job group's name is."""
    return f"zygote-{pid_namespace()}-{os.getpid()}-{sandbox_id}"


def enable_controllers(
    root: Path, controllers: set[str], write: Callable[[Path, str], None] = _write
) -> None:
    """Let ``root``'s children use ``controllers`` (cgroup v2).

    Inside a container ``root`` is the container's own group, which holds its processes, and
    the kernel refuses to hand controllers down from a group with processes in it (EBUSY). Those
    processes then move to a leaf group of their own first, as container-in-container setups do.
    ``write`` writes a control file (the kernel's; a test plays the kernel's answers with it).
    """
    line = " ".join(f"+{c}" for c in sorted(controllers))
    try:
        write(root / "cgroup.subtree_control", line)
        return
    except OSError as exc:
        if exc.errno != errno.EBUSY:
            raise
    leaf = root / SUPERVISOR
    leaf.mkdir(exist_ok=True)
    for _ in range(10):  # processes may fork while they are moved
        pids = _read(root / "cgroup.procs").split()
        if not pids:
            break
        for pid in pids:
            with contextlib.suppress(ProcessLookupError, OSError):
                write(leaf / "cgroup.procs", pid)
    write(root / "cgroup.subtree_control", line)


@dataclass(frozen=True)
class IdleSetting:
    """The file of a job group that puts it at idle CPU priority, and the values that do it.

    ``cpu.idle`` (Linux 5.15 on, cgroup v1 and v2) makes the group a ``SCHED_IDLE`` entity: it
    runs only when nothing else wants the CPU. Without it, the lowest weight (v1 ``cpu.shares``
    2 of the normal 1024, v2 ``cpu.weight`` 1 of 100).
    """

    file: str  # the name in the group's directory
    idle: str
    normal: str

    def apply(self, group_dir: Path | str, idle: bool) -> None:
        """Write the idle or the normal value into ``group_dir`` (the host's side; the spare
        writes through a file it opened, ``runner.sandbox.warmup.GroupPriority``)."""
        _write(f"{group_dir}/{self.file}", self.idle if idle else self.normal)


def _idle_setting(cpu_dir: Path) -> IdleSetting | None:
    for setting in (
        IdleSetting("cpu.idle", "1", "0"),
        IdleSetting("cpu.shares", "2", "1024"),
        IdleSetting("cpu.weight", "1", "100"),
    ):
        if (cpu_dir / setting.file).exists():
            return setting
    return None


def _cpu_controller(dirs: dict[str, Path]) -> tuple[str, IdleSetting] | None:
    """(the key of ``dirs`` whose directory holds the ``cpu`` controller's files, the idle
    setting there), or None without a ``cpu`` controller (v1 may mount ``cpu`` together with
    ``cpuacct``: then the cpuacct directory holds them)."""
    for key in ("unified", "cpu", "cpuacct"):
        if key in dirs and (setting := _idle_setting(dirs[key])) is not None:
            return key, setting
    return None


def _rmdir(path: Path | str, attempts: int = 50) -> None:
    """Remove a group directory, waiting a little (5 ms an attempt) for its last processes to go."""
    for _ in range(attempts):
        try:
            os.rmdir(path)
            return
        except FileNotFoundError:
            return
        except OSError:
            time.sleep(0.005)


@dataclass
class JobCgroup:
    """One job's groups, one directory per controller hierarchy (one under v2).

    What is the same for every group of a tree (which hierarchy holds the ``cpu`` controller's
    files and its idle setting; whether v1 accounts swap) comes from :class:`CgroupTree` when it
    makes the group, so making one costs no look-ups; a group built by hand looks them up in
    its own directories. The paths a job's host reads and writes are kept as strings: the
    ``pathlib`` joins cost more CPU than the kernel's work on these files (docs/benchmarks.md,
    the fourteenth pass).
    """

    name: str
    dirs: dict[str, Path]  # controller -> host directory
    version: int
    limits: tuple[int, int] | None = None  # (memory MB, processes) last written
    cpu: tuple[str, IdleSetting] | Literal["look up"] | None = "look up"  # CgroupTree._cpu
    swap_accounted: bool | None = None  # v1: memory.memsw.* exist (CgroupTree._swap_accounted)
    _paths: dict[str, str] = field(init=False, repr=False)  # controller -> directory, as text

    def __post_init__(self) -> None:
        self._paths = {key: str(path) for key, path in self.dirs.items()}

    @functools.cached_property
    def _procs(self) -> str:
        """The process list :meth:`pids` reads."""
        return f"{self._paths['pids' if self.version == 1 else 'unified']}/cgroup.procs"

    @functools.cached_property
    def _idle(self) -> tuple[str, IdleSetting] | None:
        return _cpu_controller(self.dirs) if self.cpu == "look up" else self.cpu

    def idle_setting(self) -> tuple[str, IdleSetting] | None:
        """(the idle file's path as the sandbox sees it, the setting), or None without a
        ``cpu`` controller. The spare opens that file while it can (the tree is unmounted before
        any job) and puts its own group at idle priority for the speculative part of its
        warm-up (``runner.sandbox.warmup.warm_spare``)."""
        if self._idle is None:
            return None
        key, setting = self._idle
        return f"{SANDBOX_MOUNT}/{key}/{self.name}/{setting.file}", setting

    def normal_priority(self) -> None:
        """The group back at the normal CPU priority (the host, at the job's hand-over; the
        spare sets it back itself too, before the job)."""
        if self._idle is not None:
            key, setting = self._idle
            with contextlib.suppress(OSError):
                setting.apply(self._paths[key], idle=False)

    def sandbox_procs_files(self) -> list[str]:
        """The ``cgroup.procs`` paths as the sandbox sees them (joined by writing "0", in this
        order). Under v1 the ``cpu`` controller's comes first: a new spare leaves the zygote's
        CPU group (at idle priority at times: ``runner.sandbox.host.Sandbox._spare_making_priority``)
        before anything else, so once it shows in its group's process list (:meth:`pids`) it
        runs at its own group's priority."""
        if self.version == 2:
            return [f"{SANDBOX_MOUNT}/unified/{self.name}/cgroup.procs"]
        cpu = self._idle[0] if self._idle else None
        return [
            f"{SANDBOX_MOUNT}/{c}/{self.name}/cgroup.procs" for c in sorted(self.dirs, key=lambda c: c != cpu)
        ]

    def pids(self) -> list[int]:
        return [int(x) for x in _read(self._procs).split()]

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
        """Write the limits, unless they are already these (a spare made with the job's defaults).

        A new group has none (unlimited); afterwards the limits written last are the group's."""
        if self.limits == (memory_mb, max_processes):
            return
        limit = str(memory_mb * 2**20)
        if self.version == 1:
            memory = self._paths["memory"]
            names = ["memory.limit_in_bytes"]
            swap = self.swap_accounted
            if swap is None:
                swap = os.path.exists(f"{memory}/memory.memsw.limit_in_bytes")
            if swap:
                # memsw (memory + swap) must never be below the memory limit: a limit that grows
                # raises memsw first, one that shrinks (or a new group's: from unlimited) lowers
                # the memory limit first.
                growing = self.limits is not None and memory_mb > self.limits[0]
                names.insert(0 if growing else 1, "memory.memsw.limit_in_bytes")
            for name in names:
                _write(f"{memory}/{name}", limit)
            with contextlib.suppress(OSError):
                _write(f"{memory}/memory.swappiness", "0")
            _write(f"{self._paths['pids']}/pids.max", str(max_processes))
        else:
            unified = self._paths["unified"]
            _write(f"{unified}/memory.max", limit)
            with contextlib.suppress(OSError):
                _write(f"{unified}/memory.swap.max", "0")
            _write(f"{unified}/pids.max", str(max_processes))
        self.limits = (memory_mb, max_processes)

    def remove(self) -> None:
        self.kill_all()
        for path in self._paths.values():
            _rmdir(path)

    def try_remove(self) -> bool:
        """Remove the group's directories now, without waiting: True once they are gone, False
        (the rest left for :meth:`remove`) while a process is still in the group."""
        for path in self._paths.values():
            try:
                os.rmdir(path)
            except FileNotFoundError:
                continue
            except OSError:
                return False
        return True


@dataclass
class ZygoteCgroup:
    """A CPU group for the sandbox's zygote, and so for the making of spares: the zygote's forks
    and each new spare's set-up until it joins its job's group (``runner.sandbox.host.Sandbox``
    puts it at idle priority while enough spares are ready). In the ``cpu`` controller's
    hierarchy only, with no limits: the zygote never runs learner code."""

    name: str
    key: str  # the controller's key in CgroupTree.parents
    path: Path
    setting: IdleSetting
    idle: bool = False
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def sandbox_procs_file(self) -> str:
        """The ``cgroup.procs`` path as the sandbox sees it: the zygote joins by writing "0"."""
        return f"{SANDBOX_MOUNT}/{self.key}/{self.name}/cgroup.procs"

    def pids(self) -> list[int]:
        return [int(x) for x in _read(self.path / "cgroup.procs").split()]

    def set_idle(self, idle: bool) -> None:
        with self._lock:
            if idle == self.idle:
                return
            with contextlib.suppress(OSError):
                self.setting.apply(self.path, idle)
                self.idle = idle

    def remove(self) -> None:
        """Remove the group once the sandbox's processes have left it (they are being killed, and
        a process holding torch takes a moment to exit)."""
        _rmdir(self.path, attempts=200)
