"""The ``torchdrill`` parent group on the host (cgroup v1 or v2), under which each job and each
zygote gets its own; the sweep of groups whose runner died."""

from __future__ import annotations

import functools
import os
from pathlib import Path

from runner.sandbox.cgroups import (
    GROUP,
    ROOT,
    SANDBOX_MOUNT,
    CgroupUnavailable,
    IdleSetting,
    JobCgroup,
    ZygoteCgroup,
    _cpu_controller,
    _read,
    enable_controllers,
    pid_namespace,
)


def _left_behind(name: str, namespace: str) -> bool:
    """A job group (or a zygote's) whose owner was a process of ``namespace`` that no longer exists.

    Groups of other pid namespaces (runners in other containers sharing a cgroup v1 tree with
    this one) are never touched: their owner's pid means nothing here.
    """
    parts = name.split("-")
    if len(parts) != 4 or parts[0] not in ("job", "zygote"):
        return False
    if parts[1] != namespace or not parts[2].isdigit():
        return False
    return not os.path.exists(f"/proc/{parts[2]}")


class CgroupTree:
    """The ``torchdrill`` parent group on the host, under which each job gets its own."""

    V1_CONTROLLERS = ("memory", "pids", "cpuacct")

    def __init__(self, root: Path = ROOT) -> None:
        self.root = root
        if all((root / c / "cgroup.procs").exists() for c in self.V1_CONTROLLERS):
            self.version = 1
            self.parents = {c: root / c / GROUP for c in self.V1_CONTROLLERS}
            # The cpu controller, where it has a hierarchy of its own (mounted with cpuacct,
            # the cpuacct directory holds its files already).
            cpu = root / "cpu"
            if (cpu / "cgroup.procs").exists() and cpu.resolve() != (root / "cpuacct").resolve():
                self.parents["cpu"] = cpu / GROUP
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
                enable_controllers(root, wanted)
                enable_controllers(self.parents["unified"], wanted)
        except PermissionError as exc:
            raise CgroupUnavailable(
                f"cannot create cgroups under {root}: {exc} (the runner needs root)"
            ) from exc

    def sandbox_binds(self) -> list[tuple[str, str]]:
        """(host path, sandbox path) pairs to bind read-write into the sandbox."""
        return [(str(p), f"{SANDBOX_MOUNT}/{c}") for c, p in self.parents.items()]

    @functools.cached_property
    def _cpu(self) -> tuple[str, IdleSetting] | None:
        """Where the ``cpu`` controller's files are, and its idle setting: the same in every group."""
        return _cpu_controller(self.parents)

    @functools.cached_property
    def _swap_accounted(self) -> bool:
        """v1: whether the memory controller accounts swap (``memory.memsw.*``), in every group."""
        return self.version == 1 and (self.parents["memory"] / "memory.memsw.limit_in_bytes").exists()

    def create(self, name: str, memory_mb: int, max_processes: int) -> JobCgroup:
        dirs = {c: p / name for c, p in self.parents.items()}
        group = JobCgroup(name, dirs, self.version, cpu=self._cpu, swap_accounted=self._swap_accounted)
        for path in group._paths.values():
            os.mkdir(path)
        try:
            group.set_limits(memory_mb, max_processes)
        except OSError:
            group.remove()
            raise
        return group

    def create_zygote_group(self, name: str) -> ZygoteCgroup | None:
        """A :class:`ZygoteCgroup` named ``name``, or None without a ``cpu`` controller."""
        if (cpu := self._cpu) is None:
            return None
        key, setting = cpu
        path = self.parents[key] / name
        path.mkdir()
        return ZygoteCgroup(name, key, path, setting)

    def sweep(self) -> list[str]:
        """Remove the job groups (and zygote groups) left behind by runners of this pid namespace
        that died.

        Group names carry the owner's pid namespace and pid (:func:`job_group_name`); returns the
        names removed.
        """
        namespace = pid_namespace()
        removed: list[str] = []
        for parent in self.parents.values():
            for child in parent.iterdir():
                if child.is_dir() and child.name not in removed and _left_behind(child.name, namespace):
                    dirs = {k: p / child.name for k, p in self.parents.items()}
                    JobCgroup(child.name, dirs, self.version).remove()
                    removed.append(child.name)
        return removed
