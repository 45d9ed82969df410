"""``python -m bench.judge``: cold and warm judging figures, and where a warm job's time goes.

Cold: a brand-new sandbox (bubblewrap + Python + ``import torch``) per verdict, which is
what a judge without a zygote pays. Warm: the zygote forks a fresh child per job.

The per-stage breakdown comes from the sandbox's job hook, which the product leaves empty
(``runner.sandbox.watch``; filled here by ``bench.jobwatch``): the host-side stages, and the
moment each result record reached the host, so the in-sandbox stages are measured from outside,
without trusting the sandbox. Judging reads the records in batches (``runner.sandbox.channel``),
so the breakdown comes from a second series of jobs watched record by record, where the host
reads each record as it is written (a wake-up per record and event, which judging does not pay).
The target is checked on the first series, never in a timed unit test: exit status 1 when it is
missed.
"""

from __future__ import annotations

import argparse
import statistics
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from bench import cpustat, poolstats, speedprobe
from bench.jobwatch import Watches
from runner.engine import Runner
from runner.format.problem import load_problem_dir
from runner.jobs import Job
from runner.sandbox import cgroups
from runner.sandbox.host import Sandbox

DEFAULT_PROBLEM = Path(__file__).resolve().parent.parent / "problems" / "backward-hook-gradients"
TARGET_MEDIAN_MS = 10.0  # issue #16, part 3: the seed problem, job in -> verdict out
# Back to back, each job shares the 2 cores with the last one's teardown and the next spare's
# fork and warm-up (about as much CPU again as the job): the spaced series shows a job alone.
SPACED_GAP_S = 0.05

# The watch's stages (runner.sandbox.watch; "verdict built" is the verdict's own time) -> what
# happened since the previous one (the records are read once the code is cleared: "start" is
# what is left of the spare's wake-up by then).
STAGES = {
    "take spare": "host: take a prepared spare",
    "cgroup limits": "host: set the job's cgroup limits",
    "payload written": "host: write the job (code, tests) into its pipe",
    "hand-over": "host: the job's pipes to the spare, over its own link",
    "spare woken": "host: while the spare wakes: its priority, the CPU counter",
    "code cleared": "host: the source policy, as the spare gets ready; its word",
    "start": "sandbox: (the rest of) wake, read the job, write files, lock down",
    "cases": "sandbox: load and run tests.py, install the guard (the cases)",
    "case 1": "sandbox: import solution.py + case 1 (+ encode, write)",
    "case": "sandbox: case {n} (+ encode, write)",
    "done": "sandbox: end record",
    "output read": "host: read what is left of the pipes",
    "teardown handed off": "host: kill the job's cgroup, leave its removal to the exit notice",
    "verdict built": "host: compare with the expected values, build the verdict",
}


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def stage_durations(timeline: list[tuple[str, float]]) -> list[tuple[str, float]]:
    """``(label, ms)`` per stage: the time between a mark and the one before it."""
    out: list[tuple[str, float]] = []
    previous, cases = 0.0, 0
    for name, at in timeline:
        if name == "event":  # the guard's events belong to the stage of the record that follows
            continue
        if name == "case":
            cases += 1
            label = STAGES["case 1"] if cases == 1 else STAGES["case"].format(n=cases)
        else:
            label = STAGES.get(name, name)
        out.append((label, at - previous))
        previous = at
    return out


def print_breakdown(timelines: list[list[tuple[str, float]]], totals: list[float]) -> None:
    per_stage: dict[str, list[float]] = {}
    for timeline in timelines:
        for label, ms in stage_durations(timeline):
            per_stage.setdefault(label, []).append(ms)
    print(
        f"\nwhere a warm job's time goes ({len(timelines)} more jobs, one at a time, watched record by "
        "record: the host reads every record as it comes; ms):"
    )
    print(f"  {'stage':<66}{'median':>8}{'p95':>8}")
    for label, values in per_stage.items():
        print(f"  {label:<66}{statistics.median(values):>8.2f}{_pct(values, 0.95):>8.2f}")
    print(f"  {'job in -> verdict out':<66}{statistics.median(totals):>8.2f}{_pct(totals, 0.95):>8.2f}")


def main(jobs_count: int = 60, cold_runs: int = 3, problem_dir: Path = DEFAULT_PROBLEM) -> int:
    problem = load_problem_dir(problem_dir)
    probe = speedprobe.probe_ms()
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
    learner_ms: list[float] = []
    host_cpu, pool_cpu, machine = (
        time.process_time(),
        poolstats.pool_cpu_seconds(runner.sandbox_pid()),
        cpustat.read(),
    )
    for _ in range(jobs_count):
        result = runner.judge(job())
        assert result.accepted, result.message
        warm.append(result.time_ms)
        learner_ms.append(sum(c.time_ms for c in result.cases))
    time.sleep(0.5)  # the last jobs' teardown, so their CPU is counted
    host_cpu_ms = (time.process_time() - host_cpu) * 1000 / jobs_count
    pool_cpu_ms = (poolstats.pool_cpu_seconds(runner.sandbox_pid()) - pool_cpu) * 1000 / jobs_count
    machine_ms = (cpustat.read() - machine).busy_s * 1000 / jobs_count
    memory = poolstats.pool_memory(runner.sandbox_pid())

    watches = Watches()
    runner.watch_jobs(watches)
    traced: list[float] = []
    timelines: list[list[tuple[str, float]]] = []
    faults: list[int] = []
    job_cpu_ms: list[float] = []
    for _ in range(jobs_count):
        started = time.perf_counter()
        result = runner.judge(job())
        assert result.accepted, result.message
        watched = watches.last()
        traced.append(result.time_ms)
        timelines.append([*watched.since(started), ("verdict built", result.time_ms)])
        faults.append(watched.page_faults or 0)
        job_cpu_ms.append(watched.cpu_ms)
    runner.watch_jobs(None)

    spaced: list[float] = []
    for _ in range(jobs_count):
        time.sleep(SPACED_GAP_S)
        result = runner.judge(job())
        assert result.accepted, result.message
        spaced.append(result.time_ms)

    total = jobs_count * 2
    spares = Watches(every_record=False, counters=False)  # which spares were asked for their warm-up
    runner.watch_jobs(spares)
    started, machine = time.perf_counter(), cpustat.read()

    def concurrent_job(_: int) -> str:
        return runner.judge(job()).verdict

    with ThreadPoolExecutor(max_workers=4) as pool:
        outcomes = list(pool.map(concurrent_job, range(total)))
    elapsed = time.perf_counter() - started
    runner.watch_jobs(None)
    time.sleep(0.5)  # the last jobs' teardown
    machine_concurrent_ms = (cpustat.read() - machine).busy_s * 1000 / total
    accepted = sum(verdict == "accepted" for verdict in outcomes)
    asked_warm = sum(watch.warm_up_asked for watch in spares.made)
    probe_end = speedprobe.probe_ms()
    runner.close()

    cold_ms, warm_ms, warm_p95 = statistics.median(cold), statistics.median(warm), _pct(warm, 0.95)
    print(f"problem: {problem.slug} (reference solution, submit mode: {len(expectations.cases)} cases)")
    print(f"{'':<34}{'cold':>12}{'warm':>12}")
    print(f"{'job in -> verdict out, median':<34}{cold_ms:>10.0f}ms{warm_ms:>10.1f}ms")
    print(f"{'job in -> verdict out, p95':<34}{max(cold):>10.0f}ms{warm_p95:>10.1f}ms")
    print(f"{'verdicts/s, 1 at a time':<34}{1000 / cold_ms:>12.2f}{1000 / warm_ms:>12.1f}")
    print(f"verdicts/s with 4 concurrent jobs (warm): {total / elapsed:.1f} ({accepted}/{total} accepted)")
    print(
        f"  their spares asked for the whole warm-up: {asked_warm}/{total} (the others, asked for while "
        "jobs filled every CPU, ran none of it)"
    )
    print(
        f"job in -> verdict out with one job every {SPACED_GAP_S * 1000:.0f} ms (not back to back): "
        f"median {statistics.median(spaced):.1f} ms, p95 {_pct(spaced, 0.95):.1f} ms"
    )
    print_breakdown(timelines, traced)
    print(
        f"page faults per job from its hand-over (watched series; mostly copy-on-write of the zygote's "
        f"pages): median {statistics.median(faults):.0f}, p95 {_pct([float(f) for f in faults], 0.95):.0f}"
    )
    print(
        f"CPU per verdict: host {host_cpu_ms:.1f} ms (this process); sandbox {pool_cpu_ms:.1f} ms in all "
        f"(the spare's fork and warm-up, the job, its exit), of which the job from its hand-over on "
        f"{statistics.median(job_cpu_ms):.1f} ms (median, watched series); the cases as timed inside: "
        f"{statistics.median(learner_ms):.1f} ms (wall)"
    )
    cpus = cgroups.usable_cpus()
    print(
        f"the machine's CPU per verdict (every process and the kernel's threads, /proc/stat): "
        f"{machine_ms:.1f} ms one at a time, {machine_concurrent_ms:.1f} ms with 4 concurrent jobs; "
        f"{cpus} CPUs allow at most {cpustat.ceiling_per_s(machine_ms, cpus):.0f} and "
        f"{cpustat.ceiling_per_s(machine_concurrent_ms, cpus):.0f} verdicts/s at those costs"
    )
    print(memory.describe())
    print(speedprobe.describe(probe, probe_end))
    checks = {
        f"job in -> verdict out ≤ {TARGET_MEDIAN_MS:g} ms median ({warm_ms:.1f} ms)": warm_ms
        <= TARGET_MEDIAN_MS,
        f"every concurrent job accepted ({accepted}/{total})": accepted == total,
    }
    for name, ok in checks.items():
        print(f"  [{'ok' if ok else 'FAIL'}] {name}")
    return 0 if all(checks.values()) else 1


def cli(argv: list[str] | None = None) -> int:
    """``python -m bench.judge [--jobs N] [--cold N]``; exit status 1 when a target is missed."""
    parser = argparse.ArgumentParser(prog="python -m bench.judge", description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=60, help="warm jobs per measurement")
    parser.add_argument("--cold", type=int, default=3, help="cold starts to measure")
    args = parser.parse_args(argv)
    return main(args.jobs, args.cold)


if __name__ == "__main__":
    raise SystemExit(cli())
