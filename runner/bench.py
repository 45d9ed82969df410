"""``python -m runner bench``: cold and warm judging figures, side by side, in one run.

Cold: a brand-new sandbox (bubblewrap + Python + ``import torch``) per verdict, which is
what a judge without a zygote pays. Warm: the zygote forks a fresh child per job.
"""

from __future__ import annotations

import statistics
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from runner.engine import Runner
from runner.jobs import Job
from runner.problem import load_problem_dir
from runner.sandbox import Sandbox

DEFAULT_PROBLEM = Path(__file__).resolve().parent.parent / "problems" / "backward-hook-gradients"


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def main(jobs_count: int = 60, cold_runs: int = 3, problem_dir: Path = DEFAULT_PROBLEM) -> dict[str, float]:
    problem = load_problem_dir(problem_dir)
    runner = Runner(max_concurrent=4)
    expectations = runner.compute_expectations(problem)

    def job() -> Job:
        return runner.job_for(problem, expectations, problem.solution, "submit")

    # Cold: start a sandbox, judge once, throw it away.
    cold: list[float] = []
    for _ in range(cold_runs):
        started = time.perf_counter()
        sandbox = Sandbox()
        try:
            sandbox.run(
                {
                    "code": problem.solution,
                    "tests_source": problem.tests,
                    "entry_point": problem.entry_point,
                    "cases": None,
                },
                problem.limits,
            )
        finally:
            sandbox.close()
        cold.append((time.perf_counter() - started) * 1000)

    for _ in range(5):  # settle
        runner.judge(job())
    warm: list[float] = []
    for _ in range(jobs_count):
        result = runner.judge(job())
        assert result.accepted, result.message
        warm.append(result.time_ms)

    total = jobs_count * 2
    started = time.perf_counter()
    with ThreadPoolExecutor(max_workers=4) as pool:
        verdicts = list(pool.map(lambda _: runner.judge(job()).verdict, range(total)))
    elapsed = time.perf_counter() - started
    accepted = sum(v == "accepted" for v in verdicts)
    runner.close()

    figures = {
        "cold_median_ms": statistics.median(cold),
        "warm_median_ms": statistics.median(warm),
        "warm_p95_ms": _pct(warm, 0.95),
        "throughput_4_concurrent_per_s": total / elapsed,
    }
    print(f"problem: {problem.slug} (reference solution, submit mode: {len(expectations.cases)} cases)")
    print(f"{'':<34}{'cold':>12}{'warm':>12}")
    cold_ms, warm_ms = figures["cold_median_ms"], figures["warm_median_ms"]
    print(f"{'job in -> verdict out, median':<34}{cold_ms:>10.0f}ms{warm_ms:>10.1f}ms")
    print(f"{'job in -> verdict out, p95':<34}{max(cold):>10.0f}ms{figures['warm_p95_ms']:>10.1f}ms")
    print(
        f"{'verdicts/s, 1 at a time':<34}{1000 / figures['cold_median_ms']:>12.2f}"
        f"{1000 / figures['warm_median_ms']:>12.1f}"
    )
    print(
        f"verdicts/s with 4 concurrent jobs (warm): {figures['throughput_4_concurrent_per_s']:.1f} "
        f"({accepted}/{total} accepted)"
    )
    return figures


if __name__ == "__main__":
    main()
