"""Per-job cgroups on this host's real hierarchy: which leftover groups a runner sweeps."""

from __future__ import annotations

import errno
import os
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

from runner import cgroups
from runner.cgroups import CgroupTree, job_group_name, pid_namespace

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


def test_v2_controllers_move_the_container_processes_into_a_leaf_first(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # cgroup v2's "no internal processes" rule cannot be met on this (v1) host's kernel, so the
    # kernel's answer is played by a stand-in: EBUSY while the group still holds processes.
    (tmp_path / "cgroup.procs").write_text("1\n7\n")
    (tmp_path / "cgroup.subtree_control").write_text("")
    real_write = cgroups._write
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
        real_write(path, value)

    monkeypatch.setattr(cgroups, "_write", kernel_write)
    cgroups.enable_controllers(tmp_path, {"memory", "pids", "cpu"})
    assert moved == ["1", "7"]
    assert (tmp_path / "cgroup.subtree_control").read_text() == "+cpu +memory +pids"


def test_v2_controllers_other_errors_are_not_hidden(tmp_path: Path) -> None:
    # No such file to write to: not the EBUSY case, so nothing is moved and the error surfaces.
    with pytest.raises(FileNotFoundError):
        cgroups.enable_controllers(tmp_path / "missing", {"memory"})
    assert not (tmp_path / "missing" / cgroups.SUPERVISOR).exists()


def test_page_faults_count_what_the_group_s_processes_touch() -> None:
    tree = CgroupTree()
    group = tree.create(job_group_name(uuid.uuid4().hex), 256, 8)
    try:
        before = group.page_faults()
        # A child that joins the group, then touches 8 MB of fresh memory: ~2,000 pages.
        procs = group.dirs["unified" if group.version == 2 else "memory"] / "cgroup.procs"
        script = f"open({str(procs)!r}, 'w').write('0'); b = bytearray(8 << 20); b[::4096] = b'x' * 2048"
        subprocess.run([sys.executable, "-c", script], check=True)
        assert group.page_faults() - before >= 2048
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
