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
filling sparse ranges with zeroes.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
from dataclasses import dataclass

MADV_HUGEPAGE = 14
MADV_COLLAPSE = 25
PAGE = os.sysconf("SC_PAGE_SIZE")
HUGE = PAGE * (PAGE // 8)  # one PMD maps a page of 8-byte entries: 2 MB with 4 KB pages
MIN_RESIDENT = 0.9  # the share of a 2 MB range already in memory for it to be collapsed

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
    failed: int = 0  # the kernel refused (no huge page free, a pinned page, ...)


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


def resident_share(start: int, length: int) -> float:
    """How much of ``[start, start + length)`` is in memory (``mincore``)."""
    pages = length // PAGE
    vec = ctypes.create_string_buffer(pages)
    if _libc.mincore(start, length, vec) != 0:
        return 0.0
    return sum(b & 1 for b in vec.raw) / pages


def madvise(start: int, length: int, advice: int) -> bool:
    return _libc.madvise(start, length, advice) == 0


def collapse_self(min_resident: float = MIN_RESIDENT, mark: bool = False) -> Collapsed:
    """Collapse this process's populated anonymous memory into huge pages, where it can.

    ``mark`` also sets ``MADV_HUGEPAGE`` on each range first (the range then stays eligible for
    huge pages on later faults and for khugepaged, in this process and in its children).
    Best effort: a kernel without ``MADV_COLLAPSE`` or a range it refuses changes nothing.
    """
    with open("/proc/self/maps") as fh:
        ranges = huge_ranges(parse_maps(fh.read()))
    report = Collapsed(candidates=len(ranges))
    for start, end in ranges:
        if resident_share(start, end - start) < min_resident:
            report.sparse += 1
            continue
        if mark:
            madvise(start, end - start, MADV_HUGEPAGE)
        if madvise(start, end - start, MADV_COLLAPSE):
            report.collapsed += 1
        else:
            report.failed += 1
    return report
