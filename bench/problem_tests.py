"""``python -m bench.problem_tests PROBLEM_DIR COMMIT``: a problem's ``tests.py`` (and statement) at
``COMMIT`` against the folder's, judged in alternating pairs in the same run, on one runner.

What a problem's new checks cost: ``A`` is the problem with ``COMMIT``'s ``tests.py`` and
``statement.md``, ``B`` the folder as it is; both judge the folder's reference solution with the
same runner, so only the tests differ. Each pair judges a batch on each side in ABBA (then BAAB)
order, one verdict at a time, and reads the CPU of this process and of the warm pool
(``bench.poolstats``) around each batch.

Reported: per pair, B minus A of the wall time and of the CPU a verdict, then the medians of the
differences with their ranges and bootstrap 90 % intervals (``bench.paired.summary``). On a busy
machine the CPU figure is the steadier one.
"""

from __future__ import annotations

import argparse
import dataclasses
import statistics
import subprocess
import time
from pathlib import Path

from bench import poolstats
from bench.paired import summary
from runner.engine import Runner
from runner.format.problem import ProblemFiles, load_problem_dir
from runner.jobs import Expectations


def _at_commit(folder: Path, commit: str, name: str) -> str:
    shown = subprocess.run(
        ["git", "show", f"{commit}:./{name}"], cwd=folder, capture_output=True, text=True, check=True
    )
    return shown.stdout


def _batch(
    runner: Runner, problem: ProblemFiles, expectations: Expectations, size: int
) -> tuple[float, float]:
    """Mean wall time and CPU (this process and the pool) a verdict, in ms."""
    cpu = poolstats.pool_cpu_seconds(runner.sandbox_pid()) + time.process_time()
    wall = time.perf_counter()
    for _ in range(size):
        result = runner.judge(runner.job_for(problem, expectations, problem.solution, "submit"))
        if not result.accepted:
            raise SystemExit(f"the reference is not accepted: {result.message}")
    wall = time.perf_counter() - wall
    cpu = poolstats.pool_cpu_seconds(runner.sandbox_pid()) + time.process_time() - cpu
    return wall * 1000 / size, cpu * 1000 / size


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("problem", type=Path)
    parser.add_argument("commit")
    parser.add_argument("--pairs", type=int, default=8)
    parser.add_argument("--batch", type=int, default=3)
    args = parser.parse_args()
    after = load_problem_dir(args.problem)
    before = dataclasses.replace(
        after,
        tests=_at_commit(args.problem, args.commit, "tests.py"),
        statement=_at_commit(args.problem, args.commit, "statement.md"),
    )
    runner = Runner(max_concurrent=1)
    sides = {"A": before, "B": after}
    expectations = {side: runner.compute_expectations(problem) for side, problem in sides.items()}
    walls: list[float] = []
    cpus: list[float] = []
    try:
        for pair in range(args.pairs):
            got: dict[str, list[tuple[float, float]]] = {"A": [], "B": []}
            for side in "ABBA" if pair % 2 == 0 else "BAAB":
                got[side].append(_batch(runner, sides[side], expectations[side], args.batch))
            walls.append(statistics.mean(w for w, _ in got["B"]) - statistics.mean(w for w, _ in got["A"]))
            cpus.append(statistics.mean(c for _, c in got["B"]) - statistics.mean(c for _, c in got["A"]))
            print(f"pair {pair}: wall {walls[-1]:+.0f} ms, CPU {cpus[-1]:+.0f} ms", flush=True)
    finally:
        runner.close()
    print(summary("wall a verdict", walls))
    print(summary("CPU a verdict", cpus))


if __name__ == "__main__":
    main()
