"""The runner refuses to run learner code where its sandbox cannot be built."""

from __future__ import annotations

import os
import shutil
import signal
import time

import pytest

from runner.engine import Runner
from runner.sandbox.bwrap import SandboxUnavailable


def test_refuses_to_start_without_bubblewrap(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(shutil, "which", lambda name: None)
    with pytest.raises(SandboxUnavailable, match="apt-get install bubblewrap"):
        Runner()


def test_reports_the_real_runtime(runner: Runner) -> None:
    import platform

    import torch

    info = runner.runtime_info()
    assert info == {"python": platform.python_version(), "torch": torch.__version__.split("+")[0]}


def test_zygote_death_is_survived(runner: Runner) -> None:
    from runner.format.problem import load_problem_dir
    from tests.runner.conftest import FIXTURES

    problem = load_problem_dir(FIXTURES / "add-one")
    expectations = runner.compute_expectations(problem)
    pid = runner.sandbox_pid()
    assert pid is not None and runner.ready()
    os.kill(pid, signal.SIGKILL)  # the zygote's sandbox goes away between jobs
    deadline = time.monotonic() + 30
    while runner.ready() and time.monotonic() < deadline:
        time.sleep(0.01)
    assert not runner.ready()
    result = runner.judge(runner.job_for(problem, expectations, problem.solution, "submit"))
    assert result.accepted, result.message


def test_a_job_s_threads_and_its_forks_have_threading_s_real_after_fork_hook(judge_probe) -> None:  # type: ignore[no-untyped-def]
    # A job that starts a thread and then forks gets a child whose threading state the
    # interpreter's own after-fork hook rebuilt.
    import ast
    import textwrap

    src = textwrap.dedent("""
        import os, threading
        def probe():
            hook = threading._after_fork.__code__.co_name
            release = threading.Event()
            other = threading.Thread(target=release.wait, daemon=True)
            other.start()
            read_end, write_end = os.pipe()
            pid = os.fork()
            if pid == 0:
                try:
                    ran = []
                    worker = threading.Thread(target=lambda: ran.append(1))
                    worker.start()
                    worker.join()
                    main = threading.current_thread() is threading.main_thread()
                    seen = [threading.active_count(), main, ran]
                    os.write(write_end, repr(seen).encode())
                finally:
                    os._exit(0)
            os.close(write_end)
            child = os.read(read_end, 4096).decode()
            os.waitpid(pid, 0)
            release.set()
            return [hook, child]
    """).lstrip()
    result = judge_probe(src, threads=True)  # a problem that allows threads and processes
    hook, child = ast.literal_eval(str(result.cases[0].actual))
    assert hook == "_after_fork"
    assert ast.literal_eval(child) == [1, True, [1]]  # the parent's other thread is gone in the child


def _job_groups() -> set[str]:
    """This process's job groups, in every controller's hierarchy."""
    from runner.sandbox.cgroup_tree import CgroupTree
    from runner.sandbox.cgroups import job_group_name

    prefix = job_group_name("")
    return {
        f"{controller}/{path.name}"
        for controller, parent in CgroupTree().parents.items()
        for path in parent.iterdir()
        if path.is_dir() and path.name.startswith(prefix)
    }


def test_a_finished_job_s_groups_are_removed_daemon_or_not(runner: Runner, judge_probe) -> None:  # type: ignore[no-untyped-def]
    # Removed once the spare's exit is known: by the sandbox's control thread when nothing is
    # left in the group, by the reaper after killing a daemon the job left behind.
    import textwrap
    import time

    daemon = textwrap.dedent("""
        import os, time
        def probe():
            if os.fork() == 0:
                os.setsid()
                time.sleep(60)
                os._exit(0)
            return 0
    """).lstrip()

    def groups() -> set[str]:
        return {name.split("/", 1)[1] for name in _job_groups()}

    before = groups()  # the ready spares' groups, which the jobs below take
    for code in ("def probe():\n    return 0\n", daemon, "def probe():\n    return 0\n"):
        assert judge_probe(code, threads=True).verdict == "accepted"  # the daemon needs a fork
    deadline = time.monotonic() + 20
    while len(before - groups()) < 3 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert len(before - groups()) >= 3  # the three jobs' groups, gone in every hierarchy
