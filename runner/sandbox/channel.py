"""A job's result channel, read on the host: the records the harness writes, in the only order
it writes them, bounded, with every string made safe (``runner.records.text``), and what the host
observed of the run (:class:`RawRun`). Anything out of order is the learner's tampering."""

from __future__ import annotations

import json
import os
import select
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from runner.jobs import Limits
from runner.records.text import clean, clean_value

RESULT_LIMIT = 16 * 1024 * 1024
EXIT_GRACE_S = 0.1
# How often the result channel is read while the job runs (see collect): a job's records wait in
# the channel's 1 MB pipe and are read when it closes, so a tick only drains a channel that fills
# (a record of hundreds of KB) or notices a job that never closes it; 5 ms cost a seed-problem
# verdict 2-3 host wake-ups for nothing (docs/benchmarks.md, the fourteenth pass).
RESULT_TICK_S = 0.05


@dataclass
class RawRun:
    records: list[dict[str, Any]] = field(default_factory=list)
    stdout: str = ""
    stderr: str = ""
    exit_status: int | None = None
    timed_out: bool = False
    oom_killed: bool = False
    output_exceeded: bool = False
    channel_corrupted: str = ""  # set when the learner's process wrote to the result channel
    channel_state: dict[str, Any] = field(default_factory=dict, repr=False)
    wall_ms: float = 0.0
    cpu_ms: float = 0.0
    peak_memory_mb: float = 0.0
    # The key the job's events are authenticated with (runner.testing.guard): the spare's, made by the
    # host with it. Never in the payload, never in a record; runner.judging.observations verifies with it.
    integrity_key: bytes = field(default=b"", repr=False)
    # The host's check of the learner's code refused it (Sandbox.run's ``cleared``): none of it ran,
    # nothing was read.
    withheld: bool = False

    def first(self, kind: str) -> dict[str, Any] | None:
        """The first record of type ``kind``, if any."""
        return next((r for r in self.records if r.get("type") == kind), None)


# The harness's records, in the only order it writes them (see runner.sandbox.harness):
#   start, then compile_error | tests_error | cases; after cases: import_error | case* then done;
#   event records (runner.testing.guard) anywhere after start, until the last record.
# sandbox_error comes from the zygote instead of start. Anything else on the channel was written
# by the learner's process: it is tampering, and the run is the learner's runtime error.
_ENDS = ("done", "compile_error", "import_error", "tests_error", "sandbox_error")
_BEFORE_CASES = ("compile_error", "tests_error")


def _tampered(raw: RawRun, what: str) -> None:
    if not raw.channel_corrupted:
        raw.channel_corrupted = what


def _accept(raw: RawRun, record: dict[str, Any]) -> bool:
    """Whether ``record`` fits the harness's order so far; records the reason when it does not."""
    kind = record.get("type")
    state = raw.channel_state
    if state.get("ended"):
        _tampered(raw, f"a {kind!s:.40} record came after the judge's last record")
        return False
    if kind == "sandbox_error":
        if raw.records:
            _tampered(raw, "a sandbox_error record came after the run had started")
            return False
    elif kind == "start":
        if raw.records:
            _tampered(raw, "a second start record was written")
            return False
    elif not state.get("started"):
        _tampered(raw, f"a {kind!s:.40} record came before the run started")
        return False
    elif kind == "event":
        pass  # authenticated, and checked for order, by runner.judging.observations on the host
    elif kind in _BEFORE_CASES:
        if state.get("cases"):
            _tampered(raw, f"a {kind} record came after the cases were listed")
            return False
    elif kind == "cases":
        if state.get("cases"):
            _tampered(raw, "the cases were listed twice")
            return False
    elif kind in ("case", "import_error", "done"):
        if not state.get("cases"):
            _tampered(raw, f"a {kind} record came before the cases were listed")
            return False
        if kind == "case":
            name = record.get("name")
            seen: set[str] = state.setdefault("case_names", set())
            if not isinstance(name, str) or name in seen:
                _tampered(raw, f"case {str(name)[:60]!r} was reported twice")
                return False
            seen.add(name)
    else:
        _tampered(raw, f"an unknown record type {str(kind)[:40]!r} was written")
        return False
    state["started"] = state.get("started") or kind == "start"
    state["cases"] = state.get("cases") or kind == "cases"
    state["ended"] = kind in _ENDS
    return True


def parse_records(raw: RawRun, data: bytes) -> bool:
    """Append the well-formed, in-order JSON lines to ``raw.records``; True once the harness is done.

    Every string in a record is made safe here (``runner.records.text``), once, before anything on the
    host stores or shows it. A line that is not a JSON object, nests too deeply for the parser,
    or breaks the harness's order marks the channel as tampered with.
    """
    done = False
    for line in data.split(b"\n"):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except RecursionError:
            _tampered(raw, "a record nested too deeply was written")
            continue
        except ValueError:  # JSONDecodeError, UnicodeDecodeError
            _tampered(raw, "a malformed record was written")
            continue
        if not isinstance(record, dict):
            _tampered(raw, "a record that is not a JSON object was written")
            continue
        if not _accept(raw, record):
            continue
        raw.records.append(clean_value(record))
        if record.get("type") in _ENDS:
            done = True
    return done


def _drain(fd: int, limit: int) -> tuple[bytes, bool]:
    """What ``fd`` (non-blocking) holds now, up to about ``limit`` bytes, and whether it ended."""
    chunks: list[bytes] = []
    size = 0
    while size <= limit:
        try:
            chunk = os.read(fd, 1 << 16)
        except BlockingIOError:
            break
        if not chunk:
            return b"".join(chunks), True
        chunks.append(chunk)
        size += len(chunk)
        if len(chunk) < 1 << 16:
            break
    return b"".join(chunks), False


def collect(
    raw: RawRun,
    out_fd: int,
    err_fd: int,
    res_fd: int,
    limits: Limits,
    started: float,
    exited: threading.Event,
    on_record: Callable[[str], None] | None = None,
) -> bool:
    """Read the job's pipes until the harness is done, they close, or a limit is hit.

    The result channel is not watched for data: the harness writes a record or an event per
    step (about 30 for a 5-case job), and waking for each would cost this process a wake-up and
    a read every time. The records wait in the pipe (the kernel's buffer, so a job killed
    mid-way loses none of those it wrote) and are read every ``RESULT_TICK_S``, on any other
    wake-up, and when the channel closes: the harness closes it after its end record, which
    wakes this loop at once (``POLLHUP`` is reported even for a descriptor polled for nothing).
    A channel found holding much data is watched for data from then on, so a job writing large
    records waits for a tick (at most ``RESULT_TICK_S``) once, when it has filled the 1 MB pipe,
    and never again. With ``on_record`` (a job's watch that wants every record as it comes:
    ``runner.sandbox.watch.JobWatch.every_record``), every channel is watched for data, and each
    record's type is passed to it as the record is read.

    A harness that exits without its end record may leave a daemon holding the pipes
    open: once the exit is known, reading stops after a short grace period.

    Returns True when the harness reported its end record (the run finished by itself).
    """
    poller = select.poll()
    buffers = {out_fd: bytearray(), err_fd: bytearray()}
    pending = bytearray()
    results_size = 0
    output_cap = limits.max_output_kb * 1024
    for fd in (out_fd, err_fd, res_fd):
        os.set_blocking(fd, False)
    poller.register(out_fd, select.POLLIN)
    poller.register(err_fd, select.POLLIN)
    poller.register(res_fd, select.POLLIN if on_record is not None else 0)
    deadline = started + limits.time_s
    open_fds = {out_fd, err_fd, res_fd}
    done = False
    exit_deadline: float | None = None
    while open_fds and not done:
        now = time.perf_counter()
        remaining = deadline - now
        if remaining <= 0:
            raw.timed_out = True
            break
        if exit_deadline is None and exited.is_set():
            exit_deadline = now + EXIT_GRACE_S
        if exit_deadline is not None and now >= exit_deadline:
            break
        ready = {fd for fd, _ in poller.poll(min(remaining, RESULT_TICK_S) * 1000)}
        if res_fd in open_fds:
            ready.add(res_fd)
        for fd in ready:
            room = RESULT_LIMIT - results_size if fd == res_fd else output_cap
            chunk, ended = _drain(fd, room)
            if ended:
                poller.unregister(fd)
                open_fds.discard(fd)
            if fd == res_fd:
                if len(chunk) >= 1 << 16 and not ended:
                    poller.modify(res_fd, select.POLLIN)
                results_size += len(chunk)
                pending += chunk
                cut = pending.rfind(b"\n")
                if cut >= 0:
                    seen = len(raw.records)
                    done = parse_records(raw, bytes(pending[: cut + 1])) or done
                    del pending[: cut + 1]
                    if on_record is not None:
                        for record in raw.records[seen:]:
                            on_record(str(record.get("type")))
            else:
                buffers[fd] += chunk
        if len(buffers[out_fd]) + len(buffers[err_fd]) > output_cap:
            raw.output_exceeded = True
            done = False
            break
        if results_size > RESULT_LIMIT:
            _tampered(raw, f"more than {RESULT_LIMIT // (1024 * 1024)} MB were written on it")
            done = False
            break
    if res_fd in open_fds and not done and results_size <= RESULT_LIMIT:
        # Stopped by a limit or the exit: what the harness wrote since the last read is kept
        # (the cases that finished before a time limit are shown with it).
        chunk, _ = _drain(res_fd, RESULT_LIMIT - results_size)
        pending += chunk
    if pending and not done:
        parse_records(raw, bytes(pending))
    raw.stdout = clean(bytes(buffers[out_fd][:output_cap]))
    raw.stderr = clean(bytes(buffers[err_fd][:output_cap]))
    return done
