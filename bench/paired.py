"""``python -m bench.paired OTHER_RUNNER_DIR``: two versions of the in-sandbox code, judged in
alternating pairs in the same run.

The machine's speed drifts 2-4x from minute to minute (and other work shares it), so figures
from different runs do not compare. This starts two runners side by side: ``A`` mounts this
checkout's ``runner/`` in its sandbox, ``B`` mounts ``OTHER_RUNNER_DIR`` (a copy of ``runner/``
with one change, e.g. a speed-up taken out; the host side is this checkout's for both). Each pair
judges a batch of jobs on each, in ABBA order, one job at a time, and waits until each pool has
its spares again before it reads the pool's CPU (so the spares made for the batch are counted).

Reported: per pair, B minus A, of the median verdict's wall time and of the pool's CPU per job
(zygote, spares and jobs, from ``/proc``), then the median of those differences with its range
and a bootstrap 90 % interval. A difference inside that interval is not resolved.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from pathlib import Path

from bench import poolstats
from bench.judge import DEFAULT_PROBLEM
from runner.engine import Runner
from runner.format.problem import load_problem_dir
from runner.sandbox import bwrap

SPARES = 4


def start_runner(runner_dir: Path) -> Runner:
    """A runner whose sandbox mounts ``runner_dir`` as its ``runner`` package."""
    saved = bwrap.RUNNER_DIR
    bwrap.RUNNER_DIR = runner_dir
    try:
        runner = Runner(max_concurrent=1)
        runner.runtime_info()  # the zygote is up before the mount point is put back
    finally:
        bwrap.RUNNER_DIR = saved
    return runner


def settle(runner: Runner, deadline_s: float = 30.0) -> None:
    end = time.monotonic() + deadline_s
    while runner.stats()["spares"] < SPARES and time.monotonic() < end:
        time.sleep(0.01)
    time.sleep(0.05)  # the last spare's warm-up steps, at idle priority


def batch(runner: Runner, job: object, jobs: int) -> tuple[float, float]:
    """Median wall ms of a verdict, and the pool's CPU ms per job (the batch's spares included)."""
    settle(runner)
    cpu0 = poolstats.pool_cpu_seconds(runner.sandbox_pid())
    walls = []
    for _ in range(jobs):
        t0 = time.perf_counter()
        result = runner.judge(job())  # type: ignore[operator]
        walls.append((time.perf_counter() - t0) * 1000)
        assert result.verdict == "accepted", result
    settle(runner)
    cpu = (poolstats.pool_cpu_seconds(runner.sandbox_pid()) - cpu0) * 1000 / jobs
    return statistics.median(walls), cpu


def summary(label: str, diffs: list[float]) -> str:
    rng = random.Random(38)
    boots = sorted(statistics.median(rng.choice(diffs) for _ in diffs) for _ in range(2000))
    low, high = boots[100], boots[1899]
    return (
        f"{label}: B-A median {statistics.median(diffs):+.3f} ms,"
        f" range [{min(diffs):+.3f}, {max(diffs):+.3f}],"
        f" bootstrap 90% [{low:+.3f}, {high:+.3f}] ({len(diffs)} pairs)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("other", type=Path, help="B: a copy of runner/ to mount instead")
    parser.add_argument("--pairs", type=int, default=10)
    parser.add_argument("--jobs", type=int, default=20, help="jobs per batch")
    parser.add_argument("--problem", type=Path, default=DEFAULT_PROBLEM)
    args = parser.parse_args()
    problem = load_problem_dir(args.problem)
    a = start_runner(bwrap.RUNNER_DIR)
    b = start_runner(args.other.resolve())
    try:
        expectations = a.compute_expectations(problem)

        def job():  # type: ignore[no-untyped-def]
            return a.job_for(problem, expectations, problem.solution, "submit")

        for runner in (a, b):
            batch(runner, job, 5)  # warm both
        wall_diffs, cpu_diffs = [], []
        for pair in range(args.pairs):
            order = (a, b) if pair % 2 == 0 else (b, a)
            got = {id(r): batch(r, job, args.jobs) for r in order}
            (wall_a, cpu_a), (wall_b, cpu_b) = got[id(a)], got[id(b)]
            wall_diffs.append(wall_b - wall_a)
            cpu_diffs.append(cpu_b - cpu_a)
            print(
                f"pair {pair + 1}: wall A {wall_a:.2f} B {wall_b:.2f};"
                f" pool CPU/job A {cpu_a:.2f} B {cpu_b:.2f} ms",
                flush=True,
            )
        print(summary("verdict wall", wall_diffs))
        print(summary("pool CPU per job", cpu_diffs))
    finally:
        a.close()
        b.close()


if __name__ == "__main__":
    main()
