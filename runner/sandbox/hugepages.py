"""Back the zygote's warm memory with transparent huge pages, so a fork and an exit cost less.

Every job is a fresh fork of the zygote (~217 MB of anonymous memory once torch is warm).
``fork()`` copies the page tables of every written private page (one entry per 4 KB page, each
page's count raised) and the child's exit tears them down again. Where a 2 MB-aligned range of
that memory is one huge page, both cost one PMD entry instead of 512 PTEs; a child's first
write to such a range splits only that PMD in the child and copies only the 4 KB it touched.

``MADV_COLLAPSE`` (Linux 6.1+) collapses a range synchronously, whatever the THP sysfs mode
(``madvise`` on this machine), without marking it ``VM_HUGEPAGE``: pages the child faults in
later in the same mapping stay 4 KB. Only anonymous, private, writable mappings are touched
(the heap and mmap'd arenas: Python's, glibc's, torch's), and only the 2 MB-aligned ranges
inside them that are mostly populated already, so collapsing does not grow the zygote by
filling sparse ranges with zeroes (``MADV_COLLAPSE`` itself has no such limit).

What it costs: ~0.5-0.75 s of system time once, when the zygote starts (~94 ranges at ~5 ms each,
measured on this machine, a VM); a job's first write
into a huge page splits that page's PMD in the job (a page table, charged to the job's
cgroup, and 512 entries filled) before copying its 4 KB, as before.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
from dataclasses import dataclass

MADV_COLLAPSE = 25
PAGE = os.sysconf("SC_PAGE_SIZE")
HUGE = PAGE * (PAGE // 8)  # one PMD maps a page of 8-byte entries: 2 MB with 4 KB pages
# The share of a 2 MB range already in memory for it to be collapsed: collapsing at most
# doubles what the range holds. The zygote's ranges are ~0 (reserved, never touched) or > 0.85.
MIN_RESIDENT = 0.5

_libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
_libc.madvise.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
_libc.mincore.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_char_p]


@dataclass(frozen=True)
class Mapping:
    start: int
    end: int
    perms: str
    inode: int
    path: str


@dataclass
class Collapsed:
    candidates: int = 0  # 2 MB ranges inside eligible mappings
    sparse: int = 0  # left alone: too few of their pages in memory
    collapsed: int = 0
    failed: int = 0  # in a run the kernel did not wholly collapse (no huge page free, a pinned page, ...)


def parse_maps(text: str) -> list[Mapping]:
    """The lines of ``/proc/<pid>/maps``."""
    out: list[Mapping] = []
    for line in text.splitlines():
        fields = line.split(maxsplit=5)
        if len(fields) < 5:
            continue
        start, _, end = fields[0].partition("-")
        out.append(
            Mapping(
                start=int(start, 16),
                end=int(end, 16),
                perms=fields[1],
                inode=int(fields[4]),
                path=fields[5].strip() if len(fields) > 5 else "",
            )
        )
    return out


def eligible(mapping: Mapping) -> bool:
    """Anonymous, private, readable and writable: the heap or an anonymous ``mmap``.

    File-backed mappings (code, read-only data, a library's ``.data``), shared memory and the
    kernel's special mappings (``[stack]``, ``[vdso]``, ``[vvar]``, ...) are left alone.
    """
    if mapping.perms[:2] != "rw" or mapping.perms[3] != "p" or mapping.inode != 0:
        return False
    return mapping.path in ("", "[heap]")


def huge_ranges(mappings: list[Mapping], huge: int = HUGE) -> list[tuple[int, int]]:
    """Every 2 MB-aligned ``(start, end)`` that lies wholly inside an eligible mapping."""
    out: list[tuple[int, int]] = []
    for mapping in mappings:
        if not eligible(mapping):
            continue
        start = -(-mapping.start // huge) * huge
        for at in range(start, mapping.end - huge + 1, huge):
            out.append((at, at + huge))
    return out


def runs(ranges: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Adjacent ranges joined, so one ``madvise`` call covers each run of them."""
    out: list[tuple[int, int]] = []
    for start, end in sorted(ranges):
        if out and out[-1][1] == start:
            out[-1] = (out[-1][0], end)
        else:
            out.append((start, end))
    return out


def resident_share(start: int, length: int) -> float:
    """How much of ``[start, start + length)`` is in memory (``mincore``)."""
    pages = length // PAGE
    vec = ctypes.create_string_buffer(pages)
    if _libc.mincore(start, length, vec) != 0:
        return 0.0
    return sum(b & 1 for b in vec.raw) / pages


def madvise(start: int, length: int, advice: int) -> bool:
    return _libc.madvise(start, length, advice) == 0


def collapse(ranges: list[tuple[int, int]], min_resident: float = MIN_RESIDENT) -> Collapsed:
    """Collapse those of ``ranges`` (2 MB-aligned, from :func:`huge_ranges`) that are mostly in memory.

    Best effort: a kernel without ``MADV_COLLAPSE`` (before 6.1), THP disabled (``never``), or a
    range it refuses leaves that memory as it was. The ranges are not marked ``MADV_HUGEPAGE``:
    later faults (the children's included) keep getting 4 KB pages, as without this.
    """
    dense = [(start, end) for start, end in ranges if resident_share(start, end - start) >= min_resident]
    report = Collapsed(candidates=len(ranges), sparse=len(ranges) - len(dense))
    for start, end in runs(dense):
        count = (end - start) // HUGE
        if madvise(start, end - start, MADV_COLLAPSE):
            report.collapsed += count
        else:
            report.failed += count
    return report


def collapse_self(min_resident: float = MIN_RESIDENT) -> Collapsed:
    """Collapse this process's populated anonymous memory into huge pages, where it can."""
    with open("/proc/self/maps") as fh:
        return collapse(huge_ranges(parse_maps(fh.read())), min_resident)
