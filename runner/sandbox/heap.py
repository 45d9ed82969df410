"""The C allocator's free memory taken by the zygote before it forks, so a job allocates fresh pages.

After torch's warm-up the zygote's heap (glibc's main arena) holds ~200 free chunks (~1.8 MB,
scattered between live ones) and a few per-thread cached ones. A spare's C allocations (torch's
tensors and autograd nodes, CPython's objects over 512 bytes) would be carved out of those:
pages shared with the zygote, so each first write copies a page (~3 µs on this machine) and the
job's new memory lies spread over many of them. :func:`hold_free_chunks` allocates every such
chunk once, in the zygote, and never frees it, then gives the top of the heap back to the kernel
(``malloc_trim``): a job's allocations then come from the end of the heap, in pages of its own
(a zero page each, ~1.2 µs, no copy) and next to each other. Measured in forks of a warm
zygote-like process: ~8 % fewer page faults a job (docs/benchmarks.md, the seventeenth pass).

Paired in one run, it saves ~1 ms of the pool's CPU and ~1.5 ms of wall time a verdict of the
seed problem (docs/benchmarks.md, "Private internals").

What it costs: the held chunks (~2 MB) stay allocated in the zygote for its life; they are
shared with every spare and never copied, since nothing writes to them. It reads glibc's
``malloc_info`` XML (into a mapping of its own, read in place: a reading that allocated its text
from the heap took a free chunk and gave it back after it, unheld) and relies on its per-thread
cache's geometry, which are glibc's own: only on a glibc release in :data:`GLIBC_CHECKED` does
:func:`hold_free_chunks` hold anything; elsewhere (another release, another C library) it does
nothing and jobs allocate as before.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import mmap
import re
from dataclasses import dataclass
from typing import Any

# The glibc releases whose malloc_info format and tcache geometry this was read and tested for
# (Debian 12's, the image's). To add one: tests/runner/sandbox/test_heap.py, then bench.paired.
GLIBC_CHECKED = frozenset({(2, 36)})

# The sizes the per-thread cache holds (tcache: 7 chunks of each size up to 1,032 bytes).
TCACHE_COUNT = 7
TCACHE_MAX_REQUEST = 1032
ALIGNMENT = 16
# Large free chunks are taken in pieces below the smallest threshold at which malloc maps
# memory of its own instead (128 KB), so every piece comes out of the heap.
PIECE = 64 * 1024
MAX_ROUNDS = 64

_BIN_BYTES = re.compile(rb'<(?:size|unsorted) from="(\d+)" to="\d+" total="\d+" count="(\d+)"/>')
_IONBF = 2  # setvbuf's "unbuffered"
LISTING_BYTES = 4 << 20  # malloc_info's text: ~30 KB in a warm zygote


@dataclass
class Held:
    chunks: int = 0  # allocations made and kept
    rounds: int = 0
    free_left: int = 0  # free chunks malloc_info still lists in the main arena


class _Allocator:
    """glibc's allocator through ctypes: ``malloc``, ``malloc_info`` into memory, ``malloc_trim``."""

    def __init__(self) -> None:
        libc = self.libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        self.malloc = libc.malloc
        self.malloc.restype = ctypes.c_void_p
        self.malloc.argtypes = [ctypes.c_size_t]
        self.free = libc.free
        self.free.argtypes = [ctypes.c_void_p]
        self.malloc_info = libc.malloc_info
        self.malloc_info.argtypes = [ctypes.c_int, ctypes.c_void_p]
        self.fmemopen = libc.fmemopen
        self.fmemopen.restype = ctypes.c_void_p
        self.fmemopen.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_char_p]
        self.setvbuf = libc.setvbuf
        self.setvbuf.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int, ctypes.c_size_t]
        self.ftell = libc.ftell
        self.ftell.restype = ctypes.c_long
        self.ftell.argtypes = [ctypes.c_void_p]
        self.fclose = libc.fclose
        self.fclose.argtypes = [ctypes.c_void_p]
        # malloc_info's text goes here: an anonymous mapping, not the heap (runs of free_chunks)
        self.page = mmap.mmap(-1, LISTING_BYTES)
        self.page_address = ctypes.addressof(ctypes.c_char.from_buffer(self.page))
        self.malloc_trim = libc.malloc_trim
        self.malloc_trim.argtypes = [ctypes.c_size_t]

    def version(self) -> tuple[int, int] | None:
        """glibc's release, ``(major, minor)`` (``gnu_get_libc_version``), or None if unreadable."""
        get = self.libc.gnu_get_libc_version
        get.restype = ctypes.c_char_p
        major, _, rest = (get() or b"").decode("ascii", "replace").partition(".")
        minor = rest.split(".")[0]
        return (int(major), int(minor)) if major.isdigit() and minor.isdigit() else None

    def free_chunks(self) -> list[tuple[int, int]] | None:
        """The main arena's free chunks (:func:`main_arena_free_chunks`), read without taking one:
        ``malloc_info`` writes, unbuffered, into a mapping outside the heap (``fmemopen``) and the
        bins are read from it in place, so no buffer of the reading is carved out of a free
        chunk and freed again after the reading (which would leave that chunk free, unheld,
        whatever the reading said). None where it could not be read."""
        stream = self.fmemopen(self.page_address, len(self.page), b"w")
        if not stream:
            return None
        try:
            self.setvbuf(stream, None, _IONBF, 0)  # no stdio buffer: it would come from the heap
            self.malloc_info(0, stream)
            written = self.ftell(stream)
        finally:
            self.fclose(stream)
        if written <= 0 or written >= len(self.page) - 1:
            return None  # nothing written, or the page was too small for it
        return _main_arena_bins(self.page, written)


def main_arena_free_chunks(xml: str) -> list[tuple[int, int]]:
    """``(chunk size, count)`` of each bin ``malloc_info`` lists for the main arena (heap 0), with
    the chunk size's flag bits cleared; fast bins, small and large bins and the unsorted one."""
    data = xml.encode("ascii", "replace")
    return _main_arena_bins(data, len(data))


def _main_arena_bins(text: Any, length: int) -> list[tuple[int, int]]:
    """:func:`main_arena_free_chunks` of the first ``length`` bytes of ``text`` (any buffer), read
    in place: the bins before the second heap's part (the main arena's part holds no other
    ``<size>`` or ``<unsorted>`` line)."""
    end = text.find(b'<heap nr="1">', 0, length)
    found = _BIN_BYTES.finditer(text, 0, length if end < 0 else end)
    return [(int(m.group(1)) & ~(ALIGNMENT - 1), int(m.group(2))) for m in found]


def request_for(chunk_size: int) -> int:
    """The ``malloc`` request that a free chunk of ``chunk_size`` bytes satisfies exactly (a chunk
    carries 8 bytes of header in use), or a piece of it where it is large."""
    return max(ALIGNMENT, min(chunk_size, PIECE) - 8)


_held: list[int] = []  # the addresses, kept for the zygote's life (never freed)


def hold_free_chunks() -> Held:
    """Allocate every free chunk of the main arena and the per-thread cache, keep them, and give
    the heap's top back to the kernel. Call once, in the zygote, after its warm-up and before
    it forks (nothing may free memory in between that a job should not reuse). Holds nothing
    (an empty :class:`Held`) on a C library not in :data:`GLIBC_CHECKED`."""
    try:
        alloc = _Allocator()
        checked = alloc.version() in GLIBC_CHECKED
    except (OSError, AttributeError):
        return Held()  # not glibc
    if not checked:
        return Held()  # a glibc this was not checked for: jobs allocate as they would without it
    held = Held()

    def take(size: int) -> None:
        address = alloc.malloc(size)
        if address:
            _held.append(address)
            held.chunks += 1

    def take_cached() -> None:
        for request in range(ALIGNMENT, TCACHE_MAX_REQUEST + 1, ALIGNMENT):
            for _ in range(TCACHE_COUNT):
                take(request - 8)

    take_cached()  # first: taking a chunk from a small bin refills the cache from that bin
    while held.rounds < MAX_ROUNDS:
        bins = alloc.free_chunks()
        if not bins:
            break
        held.rounds += 1
        for chunk_size, count in bins:
            for _ in range(count * max(1, chunk_size // PIECE)):
                take(request_for(chunk_size))
    take_cached()  # what taking from the small bins moved into the cache
    held.free_left = sum(count for _, count in alloc.free_chunks() or ())
    alloc.malloc_trim(0)
    return held
