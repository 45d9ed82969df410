"""Which of the zygote's pages a job copies, phase by phase, in forks of a warm zygote-like process.

No sandbox: this process warms up as the zygote does (``runner.sandbox.warmup.warm_up``, the guard sealed
around a key slot, frozen GC, huge pages), then forks one child per job, as ``bench/job_faults.py``
does. The child stops itself (``SIGSTOP``) after each phase of the harness (the tests loaded, the
guard in force, the solution imported, each case run and encoded, the end); at each stop this
process reads the child's page map (``/proc/<pid>/pagemap``, root only) and counts the pages of
its own writable private mappings that the child now holds a different physical page for: the
pages the child wrote since the fork, each a copy-on-write fault (~3 us on this machine). The
type names are those of the garbage collector's objects (taken before the fork) that lie on the
copied pages: what the imports put next to what the job touched.

    .venv/bin/python -m bench.job_pages          # as root; a spare without the warm-up (as under load)
    .venv/bin/python -m bench.job_pages --warm   # after the spare's warm-up
"""

from __future__ import annotations

import argparse
import array
import bisect
import collections
import gc
import os
import shutil
import signal
import socket
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bench import forked
from bench.judge import DEFAULT_PROBLEM
from runner.format.problem import load_problem_dir
from runner.records import events, values
from runner.sandbox import harness, hugepages, warmup
from runner.testing import guard

PAGE = os.sysconf("SC_PAGE_SIZE")
PRESENT = 1 << 63
PFN = (1 << 55) - 1
EVENTS_FD = 200  # the child's events go to its records pipe, duplicated here (the slotted guard's fd)

Region = tuple[int, int, str]  # start, end, what (heap, anon or the file's name)


def writable_private_regions() -> list[Region]:
    with open("/proc/self/maps") as fh:
        mappings = hugepages.parse_maps(fh.read())
    return [
        (m.start, m.end, "heap" if m.path == "[heap]" else m.path.rsplit("/", 1)[-1] or "anon")
        for m in mappings
        if m.perms[1] == "w" and m.perms[3] == "p"
    ]


def page_map(pid: int | str, start: int, end: int) -> array.array[int]:
    with open(f"/proc/{pid}/pagemap", "rb") as fh:
        fh.seek(start // PAGE * 8)
        return array.array("Q", fh.read((end - start) // PAGE * 8))


class ObjectIndex:
    """The garbage collector's objects by address, with their type names (taken once)."""

    def __init__(self) -> None:
        pairs = sorted((id(obj), type(obj).__name__) for obj in gc.get_objects())
        self.addresses = array.array("Q", (address for address, _ in pairs))
        self.names = [name for _, name in pairs]

    def types_on(self, page: int) -> set[str]:
        lo = bisect.bisect_left(self.addresses, page)
        hi = bisect.bisect_left(self.addresses, page + PAGE)
        return set(self.names[lo:hi])


def copied_pages(pid: int, regions: list[Region], before: dict[Region, array.array[int]]) -> dict[int, str]:
    """The pages the child holds a different physical page for than this process had at the fork."""
    out: dict[int, str] = {}
    for region in regions:
        start, end, what = region
        try:
            now = page_map(pid, start, end)
        except OSError:
            continue
        for i, (entry, old) in enumerate(zip(now, before[region], strict=False)):
            if entry & PRESENT and old & PRESENT and (entry & PFN) != (old & PFN):
                out[start + i * PAGE] = what
    return out


def stop_after(owner: Any, name: str, label: Callable[..., str], report: int) -> None:
    """In the child: ``owner.name`` stops the process after each call, having said which phase
    ended (``label`` is given the call's arguments)."""
    original = getattr(owner, name)
    depth = [0]  # a recursive call (values.encode of a nested value) is part of its outermost one

    def wrapper(*args: Any, **kwargs: Any) -> Any:
        depth[0] += 1
        try:
            result = original(*args, **kwargs)
        finally:
            depth[0] -= 1
        if depth[0] == 0:
            os.write(report, (label(*args) + "\n").encode())
            os.kill(os.getpid(), signal.SIGSTOP)
        return result

    setattr(owner, name, wrapper)


def run_job(
    payload: dict[str, Any], workdir: str, warm: bool, slotted: guard.KeySlotGuard, index: ObjectIndex
) -> list[tuple[str, dict[int, str], collections.Counter[str]]]:
    regions = writable_private_regions()
    before = {region: page_map("self", region[0], region[1]) for region in regions}
    records_r, records_w = os.pipe()
    report_r, report_w = os.pipe()
    pid = os.fork()
    if pid == 0:  # the job
        os.close(records_r)
        os.close(report_r)
        os.dup2(records_w, EVENTS_FD)
        pending = guard.PendingGuard(events.new_key(), EVENTS_FD, slotted)
        if warm:
            os.setsid()  # as a spare: its warm-up lowers its session's priority
            ours, _theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
            warmup.warm_spare(ours)
        os.write(report_w, b"from the fork to the job\n")
        os.kill(os.getpid(), signal.SIGSTOP)
        cases = iter(range(1, 1000))
        stop_after(harness, "load_module", lambda name, *_: f"module {name} loaded", report_w)
        stop_after(guard.PendingGuard, "install", lambda *_: "the guard put in force", report_w)
        stop_after(values, "encode", lambda *_: f"case {next(cases)} run and encoded", report_w)
        harness.run(dict(payload), harness.ResultChannel(records_w), workdir, pending)
        os.write(report_w, b"the end record\n")
        os.kill(os.getpid(), signal.SIGSTOP)
        os._exit(0)
    os.close(records_w)
    os.close(report_w)
    phases: list[tuple[str, dict[int, str], collections.Counter[str]]] = []
    seen: dict[int, str] = {}
    with os.fdopen(report_r) as reports:
        while True:
            _, status = os.waitpid(pid, os.WUNTRACED)
            if not os.WIFSTOPPED(status):
                break
            label = reports.readline().strip()
            now = copied_pages(pid, regions, before)
            new = {page: what for page, what in now.items() if page not in seen}
            types: collections.Counter[str] = collections.Counter()
            for page, what in new.items():
                if what in ("heap", "anon"):
                    types.update(index.types_on(page))
            phases.append((label, new, types))
            seen = now
            if label == "the end record":
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
                break
            os.kill(pid, signal.SIGCONT)
    os.close(records_r)
    return phases


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--problem", type=Path, default=DEFAULT_PROBLEM)
    parser.add_argument("--jobs", type=int, default=4, help="jobs run; the last one is shown")
    parser.add_argument("--warm", action="store_true", help="run the spare's warm-up before the job")
    args = parser.parse_args()
    problem = load_problem_dir(args.problem)
    indexes: list[ObjectIndex] = []  # taken after the last collection, before the freeze
    slotted = forked.warm_like_zygote(EVENTS_FD, before_freeze=lambda: indexes.append(ObjectIndex()))
    assert slotted is not None
    workdir, payload = forked.job_payload(problem)
    totals = []
    phases = []
    for _ in range(args.jobs):
        phases = run_job(payload, workdir, args.warm, slotted, indexes[0])
        totals.append(sum(len(new) for _, new, _ in phases))
    shutil.rmtree(workdir)
    print(f"{problem.slug}: pages copied a job {totals} (spare warm-up {'on' if args.warm else 'off'})")
    for label, new, types in phases:
        where = collections.Counter(new.values()).most_common(4)
        print(f"  {label}: {len(new)} pages ({', '.join(f'{what} {n}' for what, n in where)})")
        if types:
            print(f"      objects on them: {', '.join(f'{t} {n}' for t, n in types.most_common(8))}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
