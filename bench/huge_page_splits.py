"""What a fork and exit cost when children write into memory held in huge pages, or in 4 KB pages.

A process maps 96 ranges of 2 MB of anonymous memory, touches every page, and either collapses
them all into huge pages (``MADV_COLLAPSE``, as ``runner/sandbox/hugepages.py`` does in the zygote),
none,
or all but the ranges its children write. It then forks children that each write into
``--written`` ranges (``--pages`` pages in each) and exit, and prints the parent's CPU a fork and
the child's CPU (its writes, the splits of huge pages and the exit): how much a job's splits cost
against the page tables a fork copies without them (docs/benchmarks.md, the fifteenth pass).

    .venv/bin/python -m bench.huge_page_splits --written 73 --pages 4
"""

from __future__ import annotations

import argparse
import ctypes
import mmap
import os
import resource

from runner.sandbox.hugepages import HUGE, MADV_COLLAPSE, PAGE

RANGES = 96
VARIANTS = ("huge", "small", "mixed")  # collapsed all, none, all but the ranges children write

_libc = ctypes.CDLL("libc.so.6", use_errno=True)
_libc.madvise.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]


def measure(variant: str, written: int, pages: int, forks: int) -> tuple[float, float, int]:
    """(the parent's CPU a fork, the child's CPU, MB in huge pages), in ms."""
    memory = mmap.mmap(-1, (RANGES + 1) * HUGE, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
    base = ctypes.addressof(ctypes.c_char.from_buffer(memory))
    start = -(-base // HUGE) * HUGE
    offset = start - base
    for at in range(0, RANGES * HUGE, PAGE):
        memory[offset + at] = 1
    if variant == "huge":
        _libc.madvise(start, RANGES * HUGE, MADV_COLLAPSE)
    elif variant == "mixed":
        _libc.madvise(start + written * HUGE, (RANGES - written) * HUGE, MADV_COLLAPSE)
    with open("/proc/self/smaps_rollup") as fh:
        huge_kb = next(int(line.split()[1]) for line in fh if line.startswith("AnonHugePages"))

    def child() -> None:
        for index in range(written):
            for page in range(pages):
                memory[offset + index * HUGE + page * 7 * PAGE] = 2
        os._exit(0)

    def fork_all(count: int) -> None:
        for _ in range(count):
            pid = os.fork()
            if pid == 0:
                child()
            os.waitpid(pid, 0)

    fork_all(20)  # settle
    parent, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    fork_all(forks)
    parent_after = resource.getrusage(resource.RUSAGE_SELF)
    children_after = resource.getrusage(resource.RUSAGE_CHILDREN)

    def cpu(after: resource.struct_rusage, before: resource.struct_rusage) -> float:
        return (after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime) * 1000 / forks

    memory.close()
    return cpu(parent_after, parent), cpu(children_after, children), huge_kb // 1024


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--written", type=int, default=73, help="2 MB ranges each child writes into")
    parser.add_argument("--pages", type=int, default=4, help="pages each child writes in each such range")
    parser.add_argument("--forks", type=int, default=300)
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    for _ in range(args.rounds):
        for variant in VARIANTS:
            fork_ms, child_ms, huge_mb = measure(variant, args.written, args.pages, args.forks)
            print(f"{variant:<6} ({huge_mb:>3} MB in huge pages): fork {fork_ms:.2f} ms, child "
                  f"{child_ms:.2f} ms, together {fork_ms + child_ms:.2f} ms")  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
