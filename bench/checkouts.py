"""``python -m bench.checkouts OTHER_CHECKOUT``: two whole checkouts judged in alternating pairs in
one run, each with its own venv, host code and sandbox.

``bench.paired`` swaps only the in-sandbox ``runner/`` under this checkout's host; this pairs the
whole judging path (the host's checks before the job, the sandbox, the host's verdict), so it
compares two commits however far apart their layouts are. ``A`` is this checkout, ``B`` is
``OTHER_CHECKOUT`` (e.g. ``git worktree add ../base COMMIT`` and ``make setup`` in it). Each side
runs in a worker process of its own checkout's venv with one warm runner; the pairs alternate
ABBA, each batch judging its jobs one at a time after the pool has its spares again.

Reported: per pair, B minus A of the batch's median verdict (``Runner.judge``'s wall time on the
host) and of its CPU per verdict (the host process's, also shown alone, and the warm pool's from
``/proc``: zygote, spares and jobs, the batch's new spares included), then the medians of the
differences, their ranges and bootstrap 90 % intervals, and each side's medians. On a busy
machine the CPU figure is the steadier one: waiting for a CPU adds to the wall time, not to the
CPU.
With ``--stages``, one traced batch a side at the end: where a warm job's time goes, stage by
stage (the host's marks), for the two sides next to each other. With ``--spaced``, each job alone,
after the pool has all its spares again (the latency a learner's job meets, and its CPU without the
overlap of the next spare's making and the last one's exit); the host's CPU is then its judging
process's while ``Runner.judge`` runs (not the waits between jobs).
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
from pathlib import Path
from typing import Any

from bench.paired import summary

HERE = Path(__file__).resolve().parent.parent
SEED = "problems/backward-hook-gradients"

# Runs in each checkout's own venv, with that checkout's code: only what both layouts share.
WORKER = r"""
import json, statistics, sys, time
try:
    from runner.format.problem import load_problem_dir
except ImportError:
    from runner.problem import load_problem_dir
from runner.engine import Runner
try:  # this layout: the sandbox's job hook, filled by bench.jobwatch
    from bench.jobwatch import Watches
except ImportError:  # older layouts: Runner.judge's profile and the sandbox's trace mode
    Watches = None
    from runner.engine import JobProfile

def pool_cpu_s():
    if hasattr(runner, "pool_cpu_seconds"):  # older layouts
        return runner.pool_cpu_seconds()
    from bench import poolstats
    return poolstats.pool_cpu_seconds(runner.sandbox_pid())

problem = load_problem_dir(sys.argv[1])
runner = Runner(max_concurrent=1)
expectations = runner.compute_expectations(problem)

def job():
    return runner.job_for(problem, expectations, problem.solution, "submit")

def settle(deadline_s=30.0):
    end = time.monotonic() + deadline_s
    last, since = -1, time.monotonic()
    while time.monotonic() < end:
        now = runner.stats()["spares"]
        if now != last:
            last, since = now, time.monotonic()
        elif now > 0 and time.monotonic() - since > 0.1:
            return
        time.sleep(0.01)

for line in sys.stdin:
    jobs, traced, spaced = json.loads(line)
    settle()
    walls, stages, host_in_judge = [], {}, 0.0
    host0, pool0 = time.process_time(), pool_cpu_s()
    watches = Watches() if traced and Watches is not None else None
    if watches is not None:
        runner.watch_jobs(watches)
    elif traced:
        runner._sandbox.trace = True
    for _ in range(jobs):
        if spaced:
            settle()  # the job alone: every spare made and warm, nothing else running
        t0, c0 = time.perf_counter(), time.process_time()
        if Watches is None:
            profile = JobProfile()
            result = runner.judge(job(), profile)
            timeline = profile.stages
        else:
            result = runner.judge(job())
            timeline = []
        walls.append((time.perf_counter() - t0) * 1000)
        host_in_judge += time.process_time() - c0
        assert result.verdict == "accepted", result
        if watches is not None:
            timeline = [*watches.last().since(t0), ("verdict built", result.time_ms)]
        previous = 0.0
        for name, at in timeline:
            if name != "event":
                stages.setdefault(name, []).append(at - previous)
                previous = at
    if watches is not None:
        runner.watch_jobs(None)
    elif traced:
        runner._sandbox.trace = False
    settle()  # the spares made for this batch are counted in its CPU
    # Spaced, the host process's CPU while Runner.judge runs (not the waits between jobs).
    host_ms = (host_in_judge if spaced else time.process_time() - host0) * 1000 / jobs
    pool_ms = (pool_cpu_s() - pool0) * 1000 / jobs
    medians = {k: statistics.median(v) for k, v in stages.items()}
    print(json.dumps({"wall": statistics.median(walls), "cpu": host_ms + pool_ms, "host": host_ms,
                      "stages": medians}), flush=True)
"""


class Side:
    """One checkout's worker: a warm runner judging batches on request."""

    def __init__(self, checkout: Path, problem: Path) -> None:
        self.checkout = checkout
        self.proc = subprocess.Popen(
            [str(checkout / ".venv" / "bin" / "python"), "-c", WORKER, str(problem)],
            cwd=checkout,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )

    def batch(self, jobs: int, traced: bool = False, spaced: bool = False) -> dict[str, Any]:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(json.dumps([jobs, traced, spaced]) + "\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        if not line:
            raise RuntimeError(f"the worker of {self.checkout} stopped")
        result: dict[str, Any] = json.loads(line)
        return result

    def close(self) -> None:
        if self.proc.stdin is not None:
            self.proc.stdin.close()
        self.proc.wait(timeout=60)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("other", type=Path, help="B: another checkout, with its own .venv")
    parser.add_argument("--pairs", type=int, default=20)
    parser.add_argument("--jobs", type=int, default=10, help="verdicts per batch")
    parser.add_argument("--problem-a", type=Path, default=HERE / SEED, help="A's problem folder")
    parser.add_argument("--problem-b", type=Path, help="B's problem folder (default: its seed problem)")
    parser.add_argument("--stages", action="store_true", help="a traced batch a side at the end")
    parser.add_argument(
        "--spaced",
        action="store_true",
        help="each job alone: after the pool has all its spares again (the latency a learner sees)",
    )
    args = parser.parse_args()
    other = args.other.resolve()
    a = Side(HERE, args.problem_a.resolve())
    b = Side(other, (args.problem_b or other / SEED).resolve())
    try:
        for side in (a, b):
            side.batch(5)  # warm both
        figures: dict[str, dict[str, list[float]]] = {
            k: {"A": [], "B": [], "d": []} for k in ("wall", "cpu", "host")
        }
        for pair in range(args.pairs):
            order = (a, b) if pair % 2 == 0 else (b, a)
            got = {id(side): side.batch(args.jobs, spaced=args.spaced) for side in order}
            for key, f in figures.items():
                fa, fb = got[id(a)][key], got[id(b)][key]
                f["A"].append(fa)
                f["B"].append(fb)
                f["d"].append(fb - fa)
            w, c, h = figures["wall"], figures["cpu"], figures["host"]
            print(
                f"pair {pair + 1}: wall A {w['A'][-1]:.2f} B {w['B'][-1]:.2f} ms;"
                f" CPU/verdict A {c['A'][-1]:.2f} B {c['B'][-1]:.2f} ms"
                f" (of which the host's A {h['A'][-1]:.2f} B {h['B'][-1]:.2f})",
                flush=True,
            )
        for key, f in figures.items():
            med_a, med_b = statistics.median(f["A"]), statistics.median(f["B"])
            print(f"{key}: medians A {med_a:.2f} ms, B {med_b:.2f} ms")
            print(summary(key, f["d"]))
        if args.stages:
            traced_a, traced_b = (side.batch(40, traced=True, spaced=args.spaced) for side in (a, b))
            print(f"\n{'stage (ms since the previous mark, median of 40)':<50}{'A':>8}{'B':>8}")
            for name in dict.fromkeys([*traced_a["stages"], *traced_b["stages"]]):
                sa, sb = traced_a["stages"].get(name), traced_b["stages"].get(name)
                fa = f"{sa:8.2f}" if sa is not None else f"{'-':>8}"
                fb = f"{sb:8.2f}" if sb is not None else f"{'-':>8}"
                print(f"{name:<50}{fa}{fb}")
    finally:
        a.close()
        b.close()


if __name__ == "__main__":
    main()
