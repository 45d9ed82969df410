"""The benchmarks' side of the sandbox's job hook (``bench.jobwatch``): a job group's page
faults read from its cgroup, and a watched job's stages and counters, against the real sandbox."""

from __future__ import annotations

import os
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from bench.jobwatch import Watches, page_faults
from runner.engine import Runner
from runner.format.problem import load_problem_dir
from runner.sandbox.cgroup_tree import CgroupTree
from runner.sandbox.cgroups import job_group_name

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="cgroups and the sandbox need root")
ADD_ONE = Path(__file__).resolve().parent.parent / "runner" / "fixtures" / "add-one"


def test_page_faults_count_what_the_group_s_processes_touch() -> None:
    tree = CgroupTree()
    group = tree.create(job_group_name(uuid.uuid4().hex), 256, 8)
    try:
        before = page_faults(group)
        # A child that joins the group, then touches 8 MB of fresh memory: ~2,000 pages.
        procs = group.dirs["unified" if group.version == 2 else "memory"] / "cgroup.procs"
        script = f"open({str(procs)!r}, 'w').write('0'); b = bytearray(8 << 20); b[::4096] = b'x' * 2048"
        subprocess.run([sys.executable, "-c", script], check=True)
        assert page_faults(group) - before >= 2048
    finally:
        group.remove()


def test_a_watched_job_tells_its_stages_in_order_and_an_unwatched_one_nothing() -> None:
    problem = load_problem_dir(ADD_ONE)
    runner = Runner(max_concurrent=1)
    try:
        expectations = runner.compute_expectations(problem)
        job = runner.job_for(problem, expectations, problem.solution, "submit")
        watches = Watches()
        runner.watch_jobs(watches)
        started = time.perf_counter()
        assert runner.judge(job).accepted
        runner.watch_jobs(None)
        assert runner.judge(job).accepted
        assert len(watches.made) == 1  # the second job was not watched
        watched = watches.last()
        names = [name for name, _ in watched.since(started)]
        host = ["take spare", "cgroup limits", "payload written", "hand-over", "spare woken", "code cleared"]
        assert names[: len(host)] == host
        records = [n for n in names[len(host) : -2] if n != "event"]
        assert records == ["start", "cases", *["case"] * len(expectations.select("submit")), "done"]
        assert names[-2:] == ["output read", "teardown handed off"]
        times = [ms for _, ms in watched.since(started)]
        assert times == sorted(times) and times[0] >= 0
        assert watched.cpu_ms > 0 and watched.page_faults is not None and watched.page_faults > 0
    finally:
        runner.close()
