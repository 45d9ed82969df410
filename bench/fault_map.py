"""Where the sandbox's jobs take their page faults, by mapping, while a load runs.

Finds the running zygote (``td-zygote``), keeps its memory map, records every page fault on the
machine for a few seconds (``perf record -e page-faults -c 1 -d -a``: each fault with its data
address), then sorts the faults of the spares (``td-spare``: forks of the zygote, so their
mappings are the zygote's) by the mapping their address falls in: anonymous memory, the heap,
shared libraries' code, their writable and their read-only data. Printed per spare process,
which under a steady load is per job (a spare serves one job).

Run a load first, in another shell (as root: the sandbox and ``perf`` need it), then this::

    .venv/bin/python -m bench.web --levels 4 --per-level 3000 &
    sleep 20; .venv/bin/python -m bench.fault_map --seconds 4

docs/benchmarks.md (the sixteenth pass) has what it found.
"""

from __future__ import annotations

import argparse
import bisect
import collections
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from runner.sandbox.hugepages import Mapping, parse_maps


def zygote_pid() -> int:
    found = subprocess.run(["pgrep", "-x", "td-zygote"], capture_output=True, text=True).stdout.split()
    if not found:
        raise SystemExit("error: no td-zygote runs: start a load first (see this script's help)")
    return int(found[0])


def kind_of(mapping: Mapping | None) -> str:
    if mapping is None:
        return "not in the zygote's map (the spare's own)"
    if not mapping.path.startswith("/"):
        return f"anonymous {mapping.path}".strip()
    if "x" in mapping.perms:
        return "shared libraries' code"
    return "shared libraries' writable data" if "w" in mapping.perms else "shared libraries' read-only data"


Counts = collections.Counter[str]


def classify(maps: list[Mapping], faults: list[tuple[str, int, int]]) -> tuple[int, Counts, Counts]:
    """(spare processes seen, faults by kind, faults by library file) for ``(comm, pid, address)``."""
    ordered = sorted(maps, key=lambda m: m.start)
    starts = [m.start for m in ordered]
    spares: set[int] = set()
    kinds: Counts = collections.Counter()
    files: Counts = collections.Counter()
    for comm, pid, address in faults:
        if comm != "td-spare":
            continue
        spares.add(pid)
        i = bisect.bisect_right(starts, address) - 1
        mapping = ordered[i] if i >= 0 and ordered[i].start <= address < ordered[i].end else None
        kinds[kind_of(mapping)] += 1
        if mapping is not None and mapping.path.startswith("/"):
            files[Path(mapping.path).name] += 1
    return len(spares), kinds, files


def record(seconds: float) -> list[tuple[str, int, int]]:
    if shutil.which("perf") is None:
        raise SystemExit("error: perf is not installed (apt-get install linux-perf)")
    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp) / "faults.data"
        subprocess.run(
            ["perf", "record", "-q", "-e", "page-faults", "-c", "1", "-d", "-a", "-o", str(data),
             "--", "sleep", str(seconds)],
            check=True, stdout=subprocess.DEVNULL,
        )  # fmt: skip
        text = subprocess.run(
            ["perf", "script", "-i", str(data), "-F", "comm,pid,addr"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
    faults = []
    for line in text.splitlines():
        fields = line.split()
        if len(fields) == 3:
            faults.append((fields[0], int(fields[1]), int(fields[2], 16)))
    return faults


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=4.0, help="how long to record")
    args = parser.parse_args(argv)
    pid = zygote_pid()
    maps = parse_maps(Path(f"/proc/{pid}/maps").read_text())
    spares, kinds, files = classify(maps, record(args.seconds))
    if not spares:
        print("no spare took a page fault while recording: is a load running?", file=sys.stderr)
        return 1
    print(f"{spares} spare processes (under a steady load: jobs), page faults each:")
    for kind, count in kinds.most_common():
        print(f"  {kind:<45} {count / spares:8.1f}")
    print("shared libraries, by file:")
    for name, count in files.most_common(12):
        print(f"  {name:<45} {count / spares:8.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
