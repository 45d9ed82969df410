"""Liveness files of worker processes (runner workers, recorders): one per process by default.

``/tmp/torchdrill-<kind>-<pid>.heartbeat`` unless the process was given a file
(``TORCHDRILL_HEARTBEAT_FILE``, ``TORCHDRILL_RECORDER_HEARTBEAT_FILE``), so two workers on one
host never share one and a dead worker's check cannot pass on the other's heartbeat. The file is
removed when its worker stops.

The check (``python -m ... healthcheck``): a given file; else ``--pid N``'s file (and the process
alive); else every such file of a live process (one worker per container, as in compose), all
fresh, at least one.
"""

from __future__ import annotations

import contextlib
import os
import re
import time
from pathlib import Path

DIRECTORY = Path("/tmp")


def default_file(kind: str, pid: int | None = None) -> Path:
    return DIRECTORY / f"torchdrill-{kind}-{pid or os.getpid()}.heartbeat"


def _fresh(path: Path, max_age_s: float) -> bool:
    try:
        return time.time() - path.stat().st_mtime < max_age_s
    except OSError:
        return False


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def check(kind: str, given: str | None, args: list[str], max_age_s: float) -> int:
    """0 if healthy (see the module doc), else 1."""
    if given:
        return 0 if _fresh(Path(given), max_age_s) else 1
    if args[:1] == ["--pid"] and len(args) > 1 and args[1].isdigit():
        pid = int(args[1])
        return 0 if _alive(pid) and _fresh(default_file(kind, pid), max_age_s) else 1
    pattern = re.compile(rf"torchdrill-{re.escape(kind)}-(\d+)\.heartbeat")
    live = []
    for path in DIRECTORY.glob(f"torchdrill-{kind}-*.heartbeat"):
        match = pattern.fullmatch(path.name)
        if match and _alive(int(match.group(1))):
            live.append(path)
    return 0 if live and all(_fresh(p, max_age_s) for p in live) else 1


def remove(path: Path) -> None:
    with contextlib.suppress(OSError):
        path.unlink()
