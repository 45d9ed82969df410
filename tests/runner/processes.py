"""Test helpers about processes: a piece of judge code run in a forked child, as a spare runs
its job, and a sandbox's processes read from ``/proc``. The runner's tests use these rather
than the lab's instruments (``bench/``), so the product's tests depend on no measuring tool."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from typing import Any

from runner.sandbox.control import read_all

LIMIT = 1 << 26


def in_fork(work: Callable[[int], Any]) -> tuple[Any, list[dict[str, Any]]]:
    """``work(records_fd)`` in a forked child: (what it returned, JSON-encoded, and decoded
    here; the records it wrote on ``records_fd``, one JSON object a line). Nothing the child
    changes reaches this process."""
    records_r, records_w = os.pipe()
    result_r, result_w = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child: never returns
        try:
            os.close(records_r)
            os.close(result_r)
            os.write(result_w, json.dumps(work(records_w)).encode())
        finally:
            os._exit(0)
    os.close(records_w)
    os.close(result_w)
    try:
        records = read_all(records_r, LIMIT)
        result = read_all(result_r, LIMIT)
    finally:
        os.close(records_r)
        os.close(result_r)
        os.waitpid(pid, 0)
    return json.loads(result), [json.loads(line) for line in records.splitlines()]


def descendants(root: int) -> list[int]:
    """``root`` and every process below it (scanning ``/proc``)."""
    parents: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as fh:
                    parents[int(entry)] = int(fh.read().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
    found, frontier = [root], [root]
    while frontier:
        parent = frontier.pop()
        children = [pid for pid, ppid in parents.items() if ppid == parent]
        found += children
        frontier += children
    return found


def anon_huge_mb(root: int) -> float:
    """Memory that ``root`` and its descendants map as transparent huge pages (counted in each)."""
    kb = 0
    for pid in descendants(root):
        try:
            with open(f"/proc/{pid}/smaps_rollup") as fh:
                lines = fh.read().splitlines()
        except OSError:
            continue  # it ended meanwhile
        for line in lines:
            key, _, rest = line.partition(":")
            if key == "AnonHugePages":
                kb += int(rest.split()[0])
    return kb / 1024
