"""Per-job cgroups on this host's real hierarchy: which leftover groups a runner sweeps."""

from __future__ import annotations

import errno
import os
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

from runner.sandbox import cgroups, syscalls
from runner.sandbox.cgroup_tree import CgroupTree
from runner.sandbox.cgroups import job_group_name, pid_namespace

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="cgroups need root")


def dead_pid() -> int:
    proc = subprocess.Popen(["true"])
    proc.wait()
    return proc.pid


def test_sweep_removes_only_groups_of_dead_owners_in_this_pid_namespace() -> None:
    tree = CgroupTree()
    ns = pid_namespace()
    names = {
        "ours_alive": job_group_name(uuid.uuid4().hex),
        "ours_dead": f"job-{ns}-{dead_pid()}-{uuid.uuid4().hex}",
        # A runner in another container sharing this cgroup tree: its pid means nothing here.
        "other_namespace": f"job-{int(ns) + 1}-{dead_pid()}-{uuid.uuid4().hex}",
    }
    groups = {key: tree.create(name, 64, 8) for key, name in names.items()}
    try:
        removed = tree.sweep()
        assert names["ours_dead"] in removed
        assert names["ours_alive"] not in removed and names["other_namespace"] not in removed
        for key, group in groups.items():
            exists = all(path.is_dir() for path in group.dirs.values())
            assert exists == (key != "ours_dead"), key
    finally:
        for group in groups.values():
            group.remove()


def test_v2_controllers_move_the_container_processes_into_a_leaf_first(tmp_path: Path) -> None:
    # cgroup v2's "no internal processes" rule cannot be met on this (v1) host's kernel, so the
    # kernel's answer is played by a stand-in: EBUSY while the group still holds processes.
    (tmp_path / "cgroup.procs").write_text("1\n7\n")
    (tmp_path / "cgroup.subtree_control").write_text("")
    moved: list[str] = []

    def kernel_write(path: Path, value: str) -> None:
        if path.name == "cgroup.subtree_control" and (tmp_path / "cgroup.procs").read_text().split():
            raise OSError(errno.EBUSY, "Device or resource busy")
        if path.name == "cgroup.procs" and path.parent.name == cgroups.SUPERVISOR:
            moved.append(value)
            (tmp_path / "cgroup.procs").write_text(
                "".join(f"{p}\n" for p in (tmp_path / "cgroup.procs").read_text().split() if p != value)
            )
            return
        syscalls.write_control(path, value.encode())

    cgroups.enable_controllers(tmp_path, {"memory", "pids", "cpu"}, write=kernel_write)
    assert moved == ["1", "7"]
    assert (tmp_path / "cgroup.subtree_control").read_text() == "+cpu +memory +pids"


def test_v2_controllers_other_errors_are_not_hidden(tmp_path: Path) -> None:
    # No such file to write to: not the EBUSY case, so nothing is moved and the error surfaces.
    with pytest.raises(FileNotFoundError):
        cgroups.enable_controllers(tmp_path / "missing", {"memory"})
    assert not (tmp_path / "missing" / cgroups.SUPERVISOR).exists()


def test_limits_move_either_way_as_the_kernel_requires_without_being_read_back() -> None:
    """v1 refuses a memory limit above memory+swap's (and memory+swap's below the memory limit):
    the host orders the two writes from the limits it wrote last, never reading them back."""
    tree = CgroupTree()
    group = tree.create(job_group_name(uuid.uuid4().hex), 64, 8)
    memory = group.dirs["unified" if group.version == 2 else "memory"]
    files = ["memory.max"] if group.version == 2 else ["memory.limit_in_bytes", "memory.memsw.limit_in_bytes"]
    files = [name for name in files if (memory / name).exists()]
    pids = group.dirs["unified" if group.version == 2 else "pids"] / "pids.max"
    try:
        for memory_mb, processes in ((256, 16), (32, 4), (512, 8), (512, 9)):
            group.set_limits(memory_mb, processes)
            assert {name: int((memory / name).read_text()) for name in files} == dict.fromkeys(
                files, memory_mb << 20
            )
            assert int(pids.read_text()) == processes
    finally:
        group.remove()


@pytest.mark.parametrize(
    ("files", "expected"),
    [
        ({}, None),  # no quota anywhere: the CPUs this process may run on
        ({"cpu.max": "max 100000\n"}, None),
        ({"cpu.max": "150000 100000\n"}, 2),  # v2: 1.5 CPUs of quota keep 2 busy at times
        ({"cpu.max": "100000 100000\n"}, 1),
        ({"cpu/cpu.cfs_quota_us": "-1\n", "cpu/cpu.cfs_period_us": "100000\n"}, None),  # v1, none
        ({"cpu/cpu.cfs_quota_us": "50000\n", "cpu/cpu.cfs_period_us": "100000\n"}, 1),
        ({"cpu.max": "garbage\n"}, None),
    ],
)
def test_usable_cpus_follow_the_cpu_quota(
    tmp_path: Path, files: dict[str, str], expected: int | None
) -> None:
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    affinity = len(os.sched_getaffinity(0))
    assert cgroups.usable_cpus(tmp_path) == (affinity if expected is None else min(affinity, expected))


def test_each_job_group_is_a_cpu_group_of_its_own_made_at_normal_priority() -> None:
    tree = CgroupTree()
    group = tree.create(job_group_name(uuid.uuid4().hex), 64, 8)
    child = subprocess.Popen([sys.executable, "-c", "import sys; sys.stdin.read()"], stdin=subprocess.PIPE)
    try:
        idle = group.idle_setting()
        assert idle is not None, "no cpu controller on this host"
        sandbox_path, setting = idle
        controller = sandbox_path.split("/")[2]  # /cg/<controller>/<group>/<file>
        # A spare joins the cpu controller's group first, leaving the zygote's (idle at times).
        assert group.sandbox_procs_files()[0].split("/")[2] == controller
        host_file = group.dirs[controller] / setting.file
        assert host_file.read_text().strip() == setting.normal
        for procs in group.sandbox_procs_files():  # as the spare joins, on the host's paths
            host_procs = tree.parents[procs.split("/")[2]] / group.name / "cgroup.procs"
            host_procs.write_text(str(child.pid))
        cpu_line = next(
            path
            for _, controllers, path in (
                line.split(":", 2) for line in Path(f"/proc/{child.pid}/cgroup").read_text().splitlines()
            )
            if "cpu" in controllers.split(",") or (group.version == 2 and controllers == "")
        )
        assert cpu_line.endswith(f"/{cgroups.GROUP}/{group.name}")
        host_file.write_text(setting.idle)  # as the spare does for its speculative warm-up
        group.normal_priority()  # as the host does at the hand-over
        assert host_file.read_text().strip() == setting.normal
    finally:
        child.kill()
        child.wait()
        group.remove()
    assert not any(path.exists() for path in group.dirs.values())


def fake_v1_tree(root: Path, cpu: str) -> None:
    """A stand-in cgroup v1 tree: ``cpu`` is "own" (a hierarchy of its own), "with-cpuacct"
    (mounted together: both names lead to one directory) or "none"."""
    names = ["memory", "pids", "cpuacct" if cpu != "with-cpuacct" else "cpu,cpuacct"]
    if cpu == "own":
        names.append("cpu")
    for name in names:
        (root / name).mkdir()
        (root / name / "cgroup.procs").write_text("")
    if cpu == "with-cpuacct":
        (root / "cpu").symlink_to("cpu,cpuacct")
        (root / "cpuacct").symlink_to("cpu,cpuacct")


@pytest.mark.parametrize(
    ("cpu", "parents"),
    [
        ("own", {"memory", "pids", "cpuacct", "cpu"}),
        ("with-cpuacct", {"memory", "pids", "cpuacct"}),  # one directory: made once
        ("none", {"memory", "pids", "cpuacct"}),
    ],
)
def test_v1_job_groups_join_the_cpu_hierarchy_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, cpu: str, parents: set[str]
) -> None:
    fake_v1_tree(tmp_path, cpu)
    monkeypatch.setattr(cgroups.JobCgroup, "set_limits", lambda *_: None)  # no limit files here
    tree = CgroupTree(tmp_path)
    assert set(tree.parents) == parents
    group = tree.create("job-1-2-3", 64, 8)
    assert len({path.resolve() for path in group.dirs.values()}) == len(group.dirs)
    assert len(group.sandbox_procs_files()) == len(parents)


@pytest.mark.parametrize(
    ("version", "files", "expected"),
    [
        (1, {"cpu": ["cpu.shares", "cpu.idle"]}, ("/cg/cpu/job/cpu.idle", "1", "0")),  # idle first
        (1, {"cpu": ["cpu.shares"]}, ("/cg/cpu/job/cpu.shares", "2", "1024")),  # before Linux 5.15
        (1, {"cpuacct": ["cpu.shares", "cpu.idle"]}, ("/cg/cpuacct/job/cpu.idle", "1", "0")),  # co-mounted
        (2, {"unified": ["cpu.weight", "cpu.idle"]}, ("/cg/unified/job/cpu.idle", "1", "0")),
        (2, {"unified": ["cpu.weight"]}, ("/cg/unified/job/cpu.weight", "1", "100")),
        (1, {"memory": ["memory.limit_in_bytes"]}, None),  # no cpu controller: nothing to lower
    ],
)
def test_the_idle_setting_is_the_strongest_the_group_has(
    tmp_path: Path, version: int, files: dict[str, list[str]], expected: tuple[str, str, str] | None
) -> None:
    dirs: dict[str, Path] = {}
    for controller, names in files.items():
        dirs[controller] = tmp_path / controller / "job"
        dirs[controller].mkdir(parents=True)
        for name in names:
            (dirs[controller] / name).write_text("0\n")
    group = cgroups.JobCgroup("job", dirs, version)
    idle = group.idle_setting()
    assert (idle and (idle[0], idle[1].idle, idle[1].normal)) == expected
    if idle is not None:
        host_file = dirs[idle[0].split("/")[2]] / idle[1].file
        host_file.write_text(idle[1].idle)
        group.normal_priority()
        assert host_file.read_text() == idle[1].normal


def test_a_zygote_group_is_a_cpu_group_only_and_is_swept_with_its_owner() -> None:
    tree = CgroupTree()
    group = tree.create_zygote_group(cgroups.zygote_group_name(uuid.uuid4().hex))
    assert group is not None, "no cpu controller on this host"
    try:
        assert group.path.parent == tree.parents[group.key]
        others = [p / group.name for key, p in tree.parents.items() if p != tree.parents[group.key]]
        assert not any(path.exists() for path in others)  # no memory or pids limits: no learner code
        idle_file = group.path / group.setting.file
        group.set_idle(True)
        assert idle_file.read_text().strip() == group.setting.idle
        group.set_idle(False)
        assert idle_file.read_text().strip() == group.setting.normal
    finally:
        group.remove()
    assert not group.path.exists()
    dead = tree.create_zygote_group(f"zygote-{pid_namespace()}-{dead_pid()}-{uuid.uuid4().hex}")
    assert dead is not None
    assert dead.name in tree.sweep()
    assert not dead.path.exists()
