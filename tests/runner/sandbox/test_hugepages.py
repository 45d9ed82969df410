"""The zygote's huge pages (runner/sandbox/hugepages.py): which memory is picked; that collapsing works."""

from __future__ import annotations

import ctypes
import mmap
import os
import platform
from pathlib import Path

import pytest

from runner.engine import Runner
from runner.sandbox import hugepages
from runner.sandbox.hugepages import HUGE, Mapping
from tests.runner import processes

MAPS = """\
55d0c8a00000-55d0c8a2b000 r--p 00000000 fd:01 1311 /usr/bin/python3.11
55d0c8c4c000-55d0c8c9a000 rw-p 0024c000 fd:01 1311 /usr/bin/python3.11
55d0c9a1f000-55d0c9e80000 rw-p 00000000 00:00 0                          [heap]
7f1c2c1ff000-7f1c2c601000 rw-p 00000000 00:00 0
7f1c2c601000-7f1c2c700000 rw-s 00000000 00:01 4242                       /dev/zero (deleted)
7f1c2c800000-7f1c2ca00000 rw-p 00000000 00:00 0
7f1c2cc00000-7f1c2cd00000 rw-p 00000000 00:00 0
7f1c2d000000-7f1c2d200000 ---p 00000000 00:00 0
7f1c2e000000-7f1c2e400000 rw-p 00000000 fd:01 77 /usr/lib/libtorch cpu.so
7ffd1a3c0000-7ffd1a7e2000 rw-p 00000000 00:00 0                          [stack]
7ffd1a7f2000-7ffd1a7f6000 r--p 00000000 00:00 0                          [vvar]
ffffffffff600000-ffffffffff601000 --xp 00000000 00:00 0                  [vsyscall]
"""


def test_parses_every_line_of_maps_paths_with_spaces_included() -> None:
    mappings = hugepages.parse_maps(MAPS)
    assert len(mappings) == 12
    assert mappings[2] == Mapping(0x55D0C9A1F000, 0x55D0C9E80000, "rw-p", 0, "[heap]")
    assert mappings[3].path == ""
    assert mappings[4].path == "/dev/zero (deleted)"
    assert mappings[8] == Mapping(0x7F1C2E000000, 0x7F1C2E400000, "rw-p", 77, "/usr/lib/libtorch cpu.so")


def test_only_anonymous_private_writable_memory_is_eligible() -> None:
    picked = [m.start for m in hugepages.parse_maps(MAPS) if hugepages.eligible(m)]
    # the heap and the three anonymous rw-p mappings; not the binary's .data, shared memory,
    # a PROT_NONE reservation, a file-backed writable mapping, the stack or the kernel's pages
    assert picked == [0x55D0C9A1F000, 0x7F1C2C1FF000, 0x7F1C2C800000, 0x7F1C2CC00000]


def test_ranges_are_aligned_to_2mb_and_wholly_inside_a_mapping() -> None:
    assert HUGE == 2 * 1024 * 1024 or platform.machine() not in ("x86_64", "AMD64")
    ranges = hugepages.huge_ranges(hugepages.parse_maps(MAPS), huge=0x200000)
    assert ranges == [
        (0x55D0C9C00000, 0x55D0C9E00000),  # the heap: 4.4 MB, but one aligned 2 MB fits in it
        (0x7F1C2C200000, 0x7F1C2C400000),  # 0x...1ff000-0x...601000 holds two
        (0x7F1C2C400000, 0x7F1C2C600000),
        (0x7F1C2C800000, 0x7F1C2CA00000),  # exactly one; the 1 MB mapping holds none
    ]


def test_adjacent_ranges_are_joined_into_one_call() -> None:
    assert hugepages.runs([(6, 8), (0, 2), (2, 4)]) == [(0, 4), (6, 8)]
    assert hugepages.runs([]) == []


def _thp_available() -> bool:
    try:
        mode = Path("/sys/kernel/mm/transparent_hugepage/enabled").read_text()
    except OSError:
        return False
    major, minor = (int(x) for x in platform.release().split(".")[:2])
    return "[never]" not in mode and (major, minor) >= (6, 1)


def _anon_huge_kb(address: int) -> int:
    lines = Path("/proc/self/smaps").read_text().splitlines()
    inside = False
    for line in lines:
        head = line.split()[0]
        if "-" in head and ":" not in head:
            start, end = (int(x, 16) for x in head.split("-"))
            inside = start <= address < end
        elif inside and head == "AnonHugePages:":
            return int(line.split()[1])
    raise AssertionError("mapping not found")


needs_thp = pytest.mark.skipif(
    not _thp_available(), reason="needs transparent huge pages and Linux 6.1+ (MADV_COLLAPSE)"
)


@needs_thp
def test_a_populated_range_is_collapsed_with_its_contents_and_a_sparse_one_is_not() -> None:
    area = mmap.mmap(-1, 6 * HUGE, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
    try:
        view = ctypes.c_char.from_buffer(area)
        base = ctypes.addressof(view)
        del view  # (an exported buffer would keep the mmap from closing)
        first = -(-base // HUGE) * HUGE - base  # offset of the first aligned 2 MB
        dense = (base + first, base + first + HUGE)
        sparse = (base + first + 2 * HUGE, base + first + 3 * HUGE)
        pattern = os.urandom(HUGE)
        area[first : first + HUGE] = pattern
        area[first + 2 * HUGE : first + 2 * HUGE + 4096] = b"x" * 4096  # one page of 512
        assert hugepages.resident_share(dense[0], HUGE) == 1.0
        assert hugepages.resident_share(sparse[0], HUGE) == 1 / 512

        report = hugepages.collapse([dense, sparse])

        assert (report.candidates, report.sparse, report.collapsed, report.failed) == (2, 1, 1, 0)
        assert _anon_huge_kb(dense[0]) == HUGE // 1024
        assert hugepages.resident_share(sparse[0], HUGE) == 1 / 512  # not filled in
        assert area[first : first + HUGE] == pattern
        assert area[first + 2 * HUGE : first + 2 * HUGE + 4096] == b"x" * 4096
    finally:
        area.close()


@needs_thp
def test_the_zygote_and_its_spares_map_their_warm_memory_with_huge_pages(runner: Runner) -> None:
    assert runner.ready()
    assert processes.anon_huge_mb(runner.sandbox_pid()) >= 64  # ~190 MB collapsed in the zygote
