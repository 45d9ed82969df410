"""A job's spare is woken on a CPU other than the host thread's, which checks the job's code meanwhile
(``runner.sandbox.woken_apart``), and has every CPU back before any of that code runs. Against real
processes and the real sandbox: the spare's CPUs read from the host at the job's stages."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator

import pytest

from runner.engine import Runner
from runner.format.problem import ProblemFiles
from runner.jobs import Expectations
from runner.sandbox.cgroups import JobCgroup
from runner.sandbox.watch import JobWatch
from runner.sandbox.woken_apart import woken_apart
from runner.verdict import Verdict

SLEEPER = [sys.executable, "-c", "import time; time.sleep(60)"]


@pytest.fixture
def sleeper() -> Iterator[int]:
    child = subprocess.Popen(SLEEPER)
    try:
        yield child.pid
    finally:
        child.kill()
        child.wait()


@pytest.fixture
def on_one_cpu() -> Iterator[int]:
    """This thread on one CPU of those it has (so which one it runs on is known); put back after."""
    allowed = os.sched_getaffinity(0)
    if len(allowed) < 2:
        pytest.skip("one CPU: there is no other to wake a process on")
    here = min(allowed)
    os.sched_setaffinity(0, {here})
    try:
        yield here
    finally:
        os.sched_setaffinity(0, allowed)


def test_a_sleeping_process_is_pinned_off_this_threads_cpu_and_given_back(
    sleeper: int, on_one_cpu: int
) -> None:
    before = os.sched_getaffinity(sleeper)
    give_back = woken_apart([sleeper])
    assert os.sched_getaffinity(sleeper) == before - {on_one_cpu}
    give_back()
    assert os.sched_getaffinity(sleeper) == before
    give_back()  # once more: nothing left to give back
    assert os.sched_getaffinity(sleeper) == before


def test_a_process_with_only_this_cpu_or_gone_is_left_alone(sleeper: int, on_one_cpu: int) -> None:
    os.sched_setaffinity(sleeper, {on_one_cpu})
    woken_apart([sleeper])()
    assert os.sched_getaffinity(sleeper) == {on_one_cpu}
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()
    woken_apart([gone.pid])()  # no such process any more: nothing to pin, nothing raised


class CpusWatch(JobWatch):
    """The job's spare's CPUs as the host's check of its code starts (``spare woken``) and once the
    code is cleared, before any of it runs (``code cleared``)."""

    def __init__(self, seen: dict[str, set[int]]) -> None:
        self.seen = seen
        self.group: JobCgroup | None = None

    def running(self, group: JobCgroup) -> None:
        self.group = group

    def stage(self, name: str) -> None:
        if name in ("spare woken", "code cleared") and self.group is not None:
            self.seen[name] = os.sched_getaffinity(self.group.pids()[0])


def test_the_spare_runs_apart_from_the_check_and_its_code_has_every_cpu(
    checked_runner: Runner, probe: tuple[ProblemFiles, Expectations]
) -> None:
    seen: dict[str, set[int]] = {}
    checked_runner.watch_jobs(lambda: CpusWatch(seen))
    try:
        problem, expectations = probe
        result = checked_runner.judge(problem.job(expectations, "def probe():\n    return 0\n", "run"))
    finally:
        checked_runner.watch_jobs(None)
    assert result.verdict == Verdict.ACCEPTED, result.message
    pid = checked_runner.sandbox_pid()
    assert pid is not None
    everything = os.sched_getaffinity(pid)  # the sandbox's processes' CPUs, every spare's before its job
    assert seen["code cleared"] == everything
    if len(everything) > 1:
        checking = seen["spare woken"]
        assert checking < everything and len(checking) == len(everything) - 1
