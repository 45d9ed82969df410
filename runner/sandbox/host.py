"""Host side of the sandbox: build the bubblewrap command, keep a warm zygote, run one job.

``Sandbox.run`` returns a :class:`RawRun` — what came out of the sandbox (result records,
bounded stdout/stderr) and what the host observed (wall time, CPU time, limits hit).
Turning that into a verdict is :mod:`runner.judging.results`' job.
"""

from __future__ import annotations

import collections
import contextlib
import fcntl
import itertools
import json
import logging
import os
import socket
import subprocess
import threading
import time
import uuid
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from runner.jobs import Limits
from runner.records import events
from runner.sandbox import compiled
from runner.sandbox.bwrap import SandboxUnavailable, bwrap_command, check_host
from runner.sandbox.cgroup_tree import CgroupTree
from runner.sandbox.cgroups import (
    JobCgroup,
    ZygoteCgroup,
    job_group_name,
    usable_cpus,
    zygote_group_name,
)
from runner.sandbox.channel import RawRun, collect
from runner.sandbox.control import CLEARED, COLD, WARM
from runner.sandbox.job_pipes import F_SETPIPE_SZ, RESULT_PIPE_BYTES, prefeed
from runner.sandbox.spares import PoolState, idle_message, is_made, normal_priority
from runner.sandbox.watch import UNWATCHED, WatchFactory
from runner.sandbox.woken_apart import woken_apart

log = logging.getLogger("runner.sandbox.host")

STARTUP_TIMEOUT_S = float(os.environ.get("TORCHDRILL_SANDBOX_STARTUP_S", "120"))
UID_BASE = 61000
UID_SPAN = 4000


def _clear(clearance: list[int]) -> None:
    """The host's word that the job's code may run, on its clearance pipe, which it then closes
    (``clearance``: the host's end, emptied once written)."""
    with contextlib.suppress(OSError):  # a spare that died meanwhile: the run reports it
        os.write(clearance[0], CLEARED)
    os.close(clearance.pop())


class Sandbox:
    """One warm zygote. Thread-safe: many jobs may run at once, each in its own child."""

    # Spares kept ready. A spare warms up at idle priority (runner.sandbox.warmup.warm_spare), so with jobs
    # back to back on two cores it needs about three jobs' time to finish: with 2, a job often came
    # to a spare still warming (page faults per job p95 ~1,500-1,900, and the job waited for the
    # step under way); with 4 every job found a warm one (p95 ~590). Each costs ~7 MB of PSS.
    def __init__(self, spares: int = 4, watch: WatchFactory | None = None) -> None:
        self.spare_count = spares
        # Each job's hook (runner.sandbox.watch): None in the product, filled by the benchmarks.
        self.watch = watch
        self.bwrap = check_host()
        self.cgroups = CgroupTree()
        self.cgroups.sweep()
        # The zygote's CPU group: making a spare is work no job waits for while enough are ready,
        # so it runs at idle priority then (_spare_making_priority).
        self._zygote_group: ZygoteCgroup | None = self.cgroups.create_zygote_group(
            zygote_group_name(uuid.uuid4().hex)
        )
        self._uids = itertools.count()
        self._send_lock = threading.Lock()
        self._waiters: dict[str, dict[str, Any]] = {}
        self._waiters_lock = threading.Lock()
        self.info: dict[str, str] = {}
        self.proc: subprocess.Popen[bytes] | None = None
        self._reaper = ThreadPoolExecutor(max_workers=2, thread_name_prefix="sandbox-reaper")
        self._spare_maker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="sandbox-spares")
        # Jobs between taking their spare and their end (see run). A spare asked for while they
        # fill every CPU skips the speculative part of its warm-up (see _prepare).
        self._in_flight = 0
        self._in_flight_lock = threading.Lock()
        self._cpus = usable_cpus()
        self._spares: collections.deque[dict[str, Any]] = collections.deque()
        self._spares_lock = threading.Lock()
        self._start()

    def _start(self) -> None:
        parent, child = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        zygote_procs = self._zygote_group.sandbox_procs_file() if self._zygote_group else None
        cmd = bwrap_command(self.bwrap, child.fileno(), self.cgroups.sandbox_binds(), zygote_procs)
        self.proc = subprocess.Popen(
            cmd,
            pass_fds=[child.fileno()],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            env={"PATH": "/usr/bin:/bin"},
        )
        child.close()
        self.control = parent
        parent.settimeout(STARTUP_TIMEOUT_S)
        try:
            ready = json.loads(parent.recv(65536) or b"{}")
        except (TimeoutError, json.JSONDecodeError):
            ready = {}
        if ready.get("op") != "ready":
            err = b""
            with contextlib.suppress(Exception):
                self.proc.kill()
                err = self.proc.stderr.read() if self.proc.stderr else b""
            raise SandboxUnavailable(f"the sandbox did not start: {err.decode(errors='replace')[-2000:]}")
        parent.settimeout(None)
        self.info = {"python": ready["python"], "torch": ready["torch"]}
        self._reader = threading.Thread(target=self._read_control, name="zygote-control", daemon=True)
        self._reader.start()
        with self._spares_lock:
            for _ in range(self.spare_count):
                self._spares.append(self._prepare())

    def spares_ready(self) -> int:
        """How many spares are ready for a job now (for monitoring)."""
        with self._spares_lock:
            return len(self._spares)

    def pool_state(self) -> PoolState:
        """How many spares are wanted, ready and made, and how many jobs run, read now."""
        with self._spares_lock:
            ready = list(self._spares)
        with self._in_flight_lock:
            in_flight = self._in_flight
        return PoolState(self.spare_count, len(ready), sum(1 for spare in ready if is_made(spare)), in_flight)

    def zygote_group(self) -> ZygoteCgroup | None:
        """The zygote's CPU group, where spares are made; None without a cpu controller."""
        return self._zygote_group

    def wait_for_replacements(self) -> None:
        """Return once the spares that replace those taken so far have been asked for (each job
        asks for its replacement on the spare-making thread once it has been handed over)."""
        self._spare_maker.submit(lambda: None).result()

    def pid(self) -> int | None:
        """The pid at the root of the sandbox's processes (bubblewrap's), or None before it starts:
        what a tool reads the pool's memory and CPU from, in ``/proc``."""
        return self.proc.pid if self.proc is not None else None

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def _read_control(self) -> None:
        while True:
            try:
                data = self.control.recv(65536)
            except OSError:
                data = b""
            if not data:
                with self._waiters_lock:
                    for waiter in self._waiters.values():
                        waiter.setdefault("exit", None)
                        waiter["event"].set()
                    left = [w.pop("cleanup") for w in self._waiters.values() if "cleanup" in w]
                for group in left:
                    try:
                        self._reaper.submit(group.remove)
                    except RuntimeError:  # closed without waiting for this thread (close's join timed out)
                        group.remove()
                return
            msg = json.loads(data)
            if msg.get("op") == "exit":
                with self._waiters_lock:
                    exited = self._waiters.get(msg["id"])
                    group = None
                    if exited is not None:
                        exited["exit"] = msg["status"]
                        exited["event"].set()
                        group = exited.pop("cleanup", None)
                        if group is not None:
                            del self._waiters[msg["id"]]
                if group is not None:
                    self._remove(group)

    def _remove_after_exit(self, job_id: str, waiter: dict[str, Any], group: JobCgroup) -> None:
        """Remove a finished job's group once its spare has exited, off the job's path.

        The control thread does it when the zygote's exit notice comes (it is awake for it then,
        so no other thread is woken: two wake-ups a verdict fewer than a reaper waiting for the
        notice); where the notice came already, the reaper does it now."""
        with self._waiters_lock:
            if not waiter["event"].is_set():
                waiter["cleanup"] = group  # the control thread takes it with the exit notice
                return
        self._reaper.submit(self._finish, job_id, waiter, group)

    def _remove(self, group: JobCgroup) -> None:
        """A job group whose spare has exited: removed now if nothing is left in it, else by the
        reaper, which kills what is left and waits for it (a daemon the job started)."""
        if not group.try_remove():
            self._reaper.submit(group.remove)

    def close(self) -> None:
        self._spare_maker.shutdown(wait=True, cancel_futures=True)
        with self._spares_lock:
            while self._spares:
                spare = self._spares.popleft()
                spare["link"].close()  # a spare whose link closes exits
                # and its group goes once it has (or the zygote, killed below, has taken it down)
                self._reaper.submit(self._finish, spare["id"], spare["waiter"], spare["group"])
        with contextlib.suppress(OSError):
            self.control.close()
        if self.proc and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        # The groups of the spares and of jobs cut short go on the reaper (the control thread
        # hands over its last ones when the zygote's end closes): wait for both, so a runner that
        # stops leaves no group behind.
        reader = getattr(self, "_reader", None)
        if reader is not None and reader is not threading.current_thread():
            reader.join(timeout=10)
        self._reaper.shutdown(wait=True)
        if self._zygote_group is not None:
            self._zygote_group.remove()

    def _prepare(self) -> dict[str, Any]:
        """Ask the zygote for a spare: a waiting harness already inside a fresh cgroup."""
        job_id = uuid.uuid4().hex
        uid = UID_BASE + next(self._uids) % UID_SPAN
        group = self.cgroups.create(job_group_name(job_id), Limits().memory_mb, Limits().max_processes)
        waiter: dict[str, Any] = {"event": threading.Event()}
        with self._waiters_lock:
            self._waiters[job_id] = waiter
        msg = {
            "uid": uid,
            "procs": group.sandbox_procs_files(),
            "idle": idle_message(group),
            "tmp_mb": Limits().tmp_mb,
        }
        link, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        # The job's integrity key, waiting for the spare before it exists: it keys the guard the
        # zygote sealed (runner.testing.guard.KeySlotGuard) at install. Never reused: a spare serves one job.
        # Then whether to run the rest of the warm-up (runner.sandbox.warmup.warm_spare): it only moves
        # page faults from the job to the spare, at a price (it faults pages the job never
        # touches, ~8 ms of CPU a spare); worth it while a CPU is idle, not while jobs fill them
        # all, when the spare would take that CPU from them (docs/benchmarks.md, the fifth pass).
        key = events.new_key()
        with self._in_flight_lock:
            warm = self._in_flight < self._cpus
        link.send(key + (WARM if warm else COLD))
        try:
            with self._send_lock:
                # "<id>\n<json>": the zygote's loop reads the id only (runner.sandbox.control.split_message).
                socket.send_fds(self.control, [f"{job_id}\n{json.dumps(msg)}".encode()], [theirs.fileno()])
        finally:
            theirs.close()
        return {"id": job_id, "group": group, "waiter": waiter, "link": link, "key": key, "warm": warm,
                "made": False}  # fmt: skip

    def _take_spare(self) -> dict[str, Any]:
        with self._spares_lock:
            while self._spares:
                spare = self._spares.popleft()
                if not spare["waiter"]["event"].is_set():  # still alive
                    return spare
                spare["link"].close()
                self._reaper.submit(self._finish, spare["id"], spare["waiter"], spare["group"])
            self._spare_making_priority(ready=0)  # this job waits for the spare: normal priority
            return self._prepare()

    def _replenish(self) -> None:
        """Ask for the spares that replace those taken (on the ``sandbox-spares`` thread).

        Run once the job has been handed over: the zygote serves its messages in order, and a
        fork of a process holding torch costs it several ms, which the job must not wait for;
        nor must the job's host thread wait for the new spare's cgroup (a few mkdir and writes,
        some ms at times on a busy host), so this runs beside it. The lock is not held while a
        spare is made, so a job that comes meanwhile takes a ready spare at once.
        """
        while True:
            with self._spares_lock:
                if len(self._spares) >= self.spare_count:
                    return
                waiting = list(self._spares)
            self._spare_making_priority(sum(1 for spare in waiting if is_made(spare)))
            spare = self._prepare()
            with self._spares_lock:
                self._spares.append(spare)

    def _spare_making_priority(self, ready: int) -> None:
        """The zygote's CPU group (its forks, and each new spare until it joins its job's group)
        at idle priority while at least as many spares are ready (made: in their job's group) as
        jobs can start at once (one per usable CPU): the spare being made is then for a later
        job, and its making (a fork of a process holding torch, the spare's namespaces and
        mounts: a few ms of CPU) would only take CPU from the jobs running now. At the normal
        priority otherwise: a job may soon wait for it. A job that takes a spare still being made
        puts it back at once (normal_priority). Spares merely asked for do not count: at idle
        priority on a busy machine their making can lag, and counting them let jobs come to
        spares not yet made (docs/benchmarks.md, the seventh pass).
        """
        if self._zygote_group is not None:
            self._zygote_group.set_idle(ready >= self._cpus)

    def run(
        self, payload: dict[str, Any], limits: Limits, cleared: Callable[[], bool] | None = None
    ) -> RawRun:
        """Run one job in a fresh spare. ``payload`` goes to the harness (never expected values).

        ``cleared``: the host's check of the learner's code (``Runner.judge``: its source policy),
        run on this thread once the spare has the job, while the spare gets ready (its lock-down,
        the problem's tests, the guard: a few ms, longer than the check), so the two overlap when
        they run on two CPUs (the spare is woken apart from this thread while a CPU has no job:
        ``runner.sandbox.woken_apart``; queued on one, they take turns: docs/benchmarks.md, "Two
        CPUs, one queue"); the spare imports the learner's module only once it has returned True
        (``runner.sandbox.control``'s clearance pipe). False: nothing of the code runs, the spare
        exits and the run comes back ``withheld``, its records unread. The job's wall-time limit
        does not count the time the check took."""
        # In flight from before it takes its spare: the replacement asked for once it has taken
        # one must see it counted (else, jobs starting together, the last to fill the CPUs had
        # its replacement asked for the whole warm-up).
        with self._in_flight_lock:
            self._in_flight += 1
        try:
            return self._run_in_spare(payload, limits, cleared)
        finally:
            with self._in_flight_lock:
                self._in_flight -= 1

    def _run_in_spare(
        self, payload: dict[str, Any], limits: Limits, cleared: Callable[[], bool] | None
    ) -> RawRun:
        started = time.perf_counter()
        watch = UNWATCHED if self.watch is None else self.watch()
        raw = RawRun()
        spare = self._take_spare()
        raw.integrity_key = spare["key"]
        watch.spare_taken(spare["warm"])
        watch.stage("take spare")
        job_id, group, waiter = spare["id"], spare["group"], spare["waiter"]
        group.set_limits(limits.memory_mb, limits.max_processes)
        watch.stage("cgroup limits")
        pipes = [os.pipe() for _ in range(5)]  # job in, stdout, stderr, results, clearance
        with contextlib.suppress(OSError):
            fcntl.fcntl(pipes[3][0], F_SETPIPE_SZ, RESULT_PIPE_BYTES)
        clearance = [pipes[4][1]]  # the host's end, until its word is written
        finished_cleanly = False
        try:
            # The job's input goes into its pipe before the spare has the pipe, as far as it fits
            # (all of it, for any ordinary job): the spare reads it the moment it wakes.
            rest = prefeed(pipes[0][1], compiled.encode_payload(payload))
            if cleared is None:  # nothing to check: the word is there when the spare looks for it
                _clear(clearance)
            watch.stage("payload written")
            msg = {
                "op": "job",
                "id": job_id,
                "cpu_s": int(limits.time_s) + 1,
                "file_mb": limits.max_file_mb,
                "threads": limits.threads,
            }
            child_ends = [pipes[0][0], pipes[1][1], pipes[2][1], pipes[3][1], pipes[4][0]]
            # Woken on another CPU than this thread's, whose check of the code it then overlaps
            # (runner.sandbox.woken_apart), when a CPU has no job (this one counted); its CPUs are
            # given back before any of the code runs.
            apart = cleared is not None and self._in_flight < self._cpus
            give_back = woken_apart((spare.get("pids") or group.pids()) if apart else ())
            with contextlib.suppress(OSError):  # a spare that died meanwhile: the run reports it
                socket.send_fds(spare["link"], [json.dumps(msg).encode()], child_ends)
            watch.stage("hand-over")
            # What follows overlaps the spare's wake-up (a few tenths of a ms here), not its work:
            # a still-warming spare back to normal priority, the rest of a large payload.
            if not normal_priority(spare) and self._zygote_group is not None:
                self._zygote_group.set_idle(False)  # the spare is still being made: the job waits for it
            watch.running(group)
            spare["link"].close()
            for fd in child_ends:
                os.close(fd)
            self._feed(pipes[0][1], rest)
            watch.stage("spare woken")
            self._spare_maker.submit(self._replenish)  # after the job has all it needs
            limit_from = started  # the job's wall-time limit runs from here, less its wait for the word
            if cleared is not None:
                checking = time.perf_counter()
                passed = cleared()
                give_back()
                if not passed:
                    raw.withheld = True  # the spare reads end of file on its clearance pipe and exits
                    finished_cleanly = True  # nothing to read: what is left is cleaned up off the path
                    return raw
                _clear(clearance)
                limit_from += time.perf_counter() - checking
                watch.stage("code cleared")
            on_record = watch.stage if watch.every_record else None
            finished_cleanly = collect(
                raw, pipes[1][0], pipes[2][0], pipes[3][0], limits, limit_from, waiter["event"], on_record
            )
            watch.stage("output read")
            watch.finished(group)
        finally:
            for fd in (pipes[1][0], pipes[2][0], pipes[3][0], *clearance):
                with contextlib.suppress(OSError):
                    os.close(fd)
            raw.wall_ms = (time.perf_counter() - started) * 1000
            if finished_cleanly:
                # The harness reported its end: what is left (its exit, stray daemons, the
                # cgroup) is cleaned up off the critical path.
                group.kill_all(wait=False)
                self._remove_after_exit(job_id, waiter, group)
                watch.stage("teardown handed off")
            else:
                group.kill_all()
                waiter["event"].wait(timeout=2.0)
                raw.exit_status = waiter.get("exit")
                raw.oom_killed = group.oom_killed()
                raw.cpu_ms = group.cpu_ms()
                raw.peak_memory_mb = group.peak_memory_mb()
                self._finish(job_id, waiter, group)
        return raw

    def _finish(self, job_id: str, waiter: dict[str, Any], group: JobCgroup) -> None:
        waiter["event"].wait(timeout=5.0)
        with self._waiters_lock:
            self._waiters.pop(job_id, None)
        group.remove()

    @staticmethod
    def _feed(fd: int, data: bytes | memoryview) -> None:
        """Write the rest of the job's input (blocking) and close the pipe: its end of file."""
        try:
            os.set_blocking(fd, True)
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
        except BrokenPipeError:
            pass
        finally:
            os.close(fd)
