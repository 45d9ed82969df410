"""A spare asked for while jobs fill every CPU is not asked for the speculative part of its
warm-up (``runner.sandbox.host.Sandbox._prepare``), as the job that takes it is told through the
sandbox's job hook (``runner.sandbox.watch``): against the real sandbox. That a spare told so runs
none of it is ``test_warm_spare.py``'s (``warm_spare(..., speculative=False)`` runs no step)."""

from __future__ import annotations

import os
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from runner.engine import Runner
from runner.format.problem import load_problem_dir
from runner.sandbox.watch import JobWatch
from tests.runner.conftest import FIXTURES

SLOW_S = 2.0  # within the fixture problem's 3 s limit
SLOW = (
    f"import time\nimport torch\ntime.sleep({SLOW_S})\n\n\n"
    "def add_one(x):\n    return torch.as_tensor(x) + 1\n"
)


class SpareWatch(JobWatch):
    """Keeps whether the job's spare was asked for its whole warm-up."""

    warm_up_asked: bool | None = None

    def spare_taken(self, warm: bool) -> None:
        self.warm_up_asked = warm


def test_spares_asked_for_while_jobs_fill_every_cpu_skip_the_speculative_warm_up(runner: Runner) -> None:
    cpus = len(os.sched_getaffinity(0))
    if cpus > runner.max_concurrent:
        pytest.skip(f"{cpus} CPUs: the shared runner cannot run that many jobs at once")
    problem = load_problem_dir(FIXTURES / "add-one")
    expectations = runner.compute_expectations(problem)
    pool = runner.pool_state()
    assert pool is not None
    spares = pool.spares_wanted
    # A job's watch is made on the thread that judges it (Runner.judge runs the job there).
    local = threading.local()

    def watch() -> SpareWatch:
        local.watch = SpareWatch()
        return local.watch  # type: ignore[no-any-return]

    def judge(code: str) -> SpareWatch:
        local.watch = None
        result = runner.judge(runner.job_for(problem, expectations, code, "submit"))
        assert result.accepted, result.message
        assert isinstance(local.watch, SpareWatch)
        return local.watch

    runner.watch_jobs(watch)
    try:
        # As many slow jobs at once as there are CPUs: the spare asked for to replace the last one
        # to start finds them full (a job counts from taking its spare, so whichever order the
        # threads run in). Wait (with a deadline well inside the slow jobs' sleep) until the pool
        # is full again, so the replacements were asked for while the slow jobs still ran,
        # however busy the machine.
        with ThreadPoolExecutor(max_workers=cpus) as threads:
            slow = [threads.submit(judge, SLOW) for _ in range(cpus)]
            deadline = time.monotonic() + SLOW_S - 0.5
            while time.monotonic() < deadline and not (
                (pool := runner.pool_state()) is not None
                and pool.jobs_in_flight == cpus
                and pool.spares_ready >= spares
            ):
                time.sleep(0.01)
            for job in slow:
                job.result()
        # The pool's spares are used in the order they were asked for: within the next few jobs
        # (one at a time) come those asked for while the slow jobs ran.
        after = [judge(problem.solution) for _ in range(spares + 1)]
        assert any(w.warm_up_asked is False for w in after), [w.warm_up_asked for w in after]
        # One job at a time leaves a CPU idle (given two): the spares asked for now get it all.
        later = [judge(problem.solution) for _ in range(spares + 1)]
        assert later[-1].warm_up_asked == (cpus > 1)
    finally:
        runner.watch_jobs(None)
