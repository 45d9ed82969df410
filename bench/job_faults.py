"""Where a job's page faults and CPU go, phase by phase, in forks of a warm zygote-like process.

No sandbox: this process warms up exactly as the zygote does (``runner.sandbox.warmup.warm_up``, frozen
GC, huge pages), then forks one child per job; each child optionally runs a spare's warm-up
(``runner.sandbox.warmup.warm_spare``) and then the harness on the problem's reference solution, with
the guard, counting minor page faults (``getrusage``) and thread CPU around the guard's install
(sealed once by this process around a key slot, as the zygote does: ``runner.testing.guard.KeySlotGuard``),
the modules' loading and each case. A fault on this machine costs ~2.5-3 us (a copy-on-write of
a page shared with the zygote), so the counts say what the warm-up saves a job:

    .venv/bin/python -m bench.job_faults                 # spares warm (as in production)
    .venv/bin/python -m bench.job_faults --cold          # no spare warm-up
    .venv/bin/python -m bench.job_faults --no-guard      # no integrity key: what the guard costs
"""

from __future__ import annotations

import argparse
import functools
import os
import resource
import shutil
import socket
import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bench import forked
from bench.judge import DEFAULT_PROBLEM
from runner.format.problem import load_problem_dir
from runner.jobs import CaseExpectation, Expectations
from runner.judging import observations
from runner.records import events
from runner.sandbox import harness, warmup
from runner.testing import guard, hook_events, ops, sealed

Log = list[tuple[str, int, float]]


def checks_operations(records: list[dict[str, Any]], key: bytes) -> bool:
    """The host's watch for a problem's jobs (``Expectations.checks_operations``), from its
    reference's run: the events verified and summed up per case as the host does."""
    run = observations.verify(records, key)
    cases = tuple(
        CaseExpectation(
            name=name, public=True, rtol=0.0, atol=0.0, value=None, observed=observations.summary(case)
        )
        for name, case in run.cases.items()
    )
    return Expectations(cases=cases).checks_operations()


def faults() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt


def counted(log: Log, owner: Any, name: str, label: str) -> None:
    """Replace ``owner.name`` by a wrapper that logs the faults and CPU of each call."""
    original: Callable[..., Any] = getattr(owner, name)

    @functools.wraps(original)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        before, cpu = faults(), time.thread_time()
        try:
            return original(*args, **kwargs)
        finally:
            log.append((label, faults() - before, (time.thread_time() - cpu) * 1000))

    # the judge's modules are read-only by now (runner.testing.frozen_modules): the base setter
    sealed.set_attribute(owner, name, wrapper)


EVENTS_FD = 200  # where each child's events go (its records pipe, duplicated): the slotted guard's fd


def one_job(
    payload: dict[str, Any], workdir: str, warm: bool, slotted: guard.KeySlotGuard | None, key: bytes
) -> tuple[Log, list[dict[str, Any]]]:
    """Fork, run the job in the child (its guard's key ``key``), return what it logged and the
    records it wrote."""

    def job(records_w: int) -> Log:
        os.dup2(records_w, EVENTS_FD)
        pending = guard.PendingGuard(key, EVENTS_FD, slotted) if slotted else None
        if warm:
            os.setsid()  # a session of its own, as a spare's: its warm-up lowers the session's priority
            ours, _theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
            warmup.warm_spare(ours)
        log: Log = []
        counted(log, guard.PendingGuard, "install", "guard install (all)")
        counted(log, guard.KeySlotGuard, "put_in_force", "  of which keying the guard sealed ahead")
        counted(log, guard, "seal", "  of which sealing (only where tests.py changed its targets)")
        counted(log, ops, "prepare", "    of which operations")
        counted(log, hook_events, "prepare", "    of which hooks")
        counted(log, harness, "load_module", "load a module (tests, solution)")
        before, cpu = faults(), time.thread_time()
        harness.run(dict(payload), harness.ResultChannel(records_w), workdir, pending)
        log.append(("the whole job", faults() - before, (time.thread_time() - cpu) * 1000))
        return log

    logged, records = forked.in_fork(job)
    return [tuple(entry) for entry in logged], records


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--problem", type=Path, default=DEFAULT_PROBLEM)
    parser.add_argument("--jobs", type=int, default=25)
    parser.add_argument("--cold", action="store_true", help="no spare warm-up before each job")
    parser.add_argument("--no-guard", action="store_true", help="no integrity key: no guard in the job")
    args = parser.parse_args()
    problem = load_problem_dir(args.problem)
    slotted = forked.warm_like_zygote(EVENTS_FD, guarded=not args.no_guard)
    workdir, payload = forked.job_payload(problem)
    phases: dict[str, list[tuple[int, float]]] = {}
    for n in range(args.jobs + 3):
        key = events.new_key()
        log, records = one_job(payload, workdir, warm=not args.cold, slotted=slotted, key=key)
        if n == 0:  # the reference's run, watched in every case: the host's watch for its jobs
            payload["watch_ops_every_case"] = checks_operations(records, key)
        if n < 3:
            continue  # settle
        for label, count, cpu in log:
            phases.setdefault(label, []).append((count, cpu))
        for record in records:
            if record.get("type") == "case":
                phases.setdefault(f"case {record['name']}", []).append((0, record["time_ms"]))
    shutil.rmtree(workdir)
    print(
        f"{problem.slug}: {args.jobs} jobs, spare warm-up {'off' if args.cold else 'on'}, "
        f"guard {'off' if args.no_guard else 'on'}, every case watched for operations: "
        f"{payload.get('watch_ops_every_case')} (medians per job)"
    )
    print(f"  {'phase':<48}{'page faults':>12}{'CPU ms':>9}")
    for label, values in phases.items():
        median_faults = statistics.median(v[0] for v in values)
        median_cpu = statistics.median(v[1] for v in values)
        shown = "" if label.startswith("case ") else f"{median_faults:.0f}"
        print(f"  {label:<48}{shown:>12}{median_cpu:>9.2f}")
    print("  (a case's time is its wall time as the harness measures it)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
