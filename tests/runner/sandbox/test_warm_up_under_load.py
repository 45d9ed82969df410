"""A spare asked for while jobs fill every CPU skips the speculative part of its warm-up, and the
host says which spares it asked for the whole of it (``runner.sandbox.host.Sandbox._prepare``,
``runner.sandbox.warmup.warm_spare``): against the real sandbox."""

from __future__ import annotations

import os
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from runner.engine import JobProfile, Runner
from runner.format.problem import load_problem_dir
from tests.runner.conftest import FIXTURES

SLOW_S = 2.0  # within the fixture problem's 3 s limit
SLOW = (
    f"import time\nimport torch\ntime.sleep({SLOW_S})\n\n\n"
    "def add_one(x):\n    return torch.as_tensor(x) + 1\n"
)


def test_spares_asked_for_while_jobs_fill_every_cpu_skip_the_speculative_warm_up(runner: Runner) -> None:
    cpus = len(os.sched_getaffinity(0))
    if cpus > runner.max_concurrent:
        pytest.skip(f"{cpus} CPUs: the shared runner cannot run that many jobs at once")
    problem = load_problem_dir(FIXTURES / "add-one")
    expectations = runner.compute_expectations(problem)
    pool = runner.pool_state()
    assert pool is not None
    spares = pool.spares_wanted

    def judge(code: str) -> JobProfile:
        profile = JobProfile()
        result = runner.judge(runner.job_for(problem, expectations, code, "submit"), profile)
        assert result.accepted, result.message
        return profile

    # As many slow jobs at once as there are CPUs: the spare asked for to replace the last one to
    # start finds them full (a job counts from taking its spare, so whichever order the threads
    # run in). Wait (with a deadline well inside the slow jobs' sleep) until the pool is full
    # again, so the replacements were asked for while the slow jobs still ran, however busy
    # the machine.
    with ThreadPoolExecutor(max_workers=cpus) as pool:
        slow = [pool.submit(judge, SLOW) for _ in range(cpus)]
        deadline = time.monotonic() + SLOW_S - 0.5
        while time.monotonic() < deadline and not (
            (pool := runner.pool_state()) is not None
            and pool.jobs_in_flight == cpus
            and pool.spares_ready >= spares
        ):
            time.sleep(0.01)
        for job in slow:
            job.result()
    # The pool's spares are used in the order they were asked for: within the next few jobs (one
    # at a time) come those asked for while the slow jobs ran.
    after = [judge(problem.solution) for _ in range(spares + 1)]
    cold = [p for p in after if not p.warm_up_asked]
    assert cold, [(p.warm_up_asked, p.warm_up_steps) for p in after]
    for profile in cold:
        assert profile.warm_up_steps == 0
    # One job at a time leaves a CPU idle (given two): the spares asked for now get it all.
    later = [judge(problem.solution) for _ in range(spares + 1)]
    assert later[-1].warm_up_asked == (cpus > 1)
    assert all(p.warm_up_steps is not None for p in later)
