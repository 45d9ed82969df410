"""The zygote: a process inside the sandbox with torch imported, that forks one child per job.

It never runs learner code and never sees a job's data: it only forks *spares*, each
prepared ahead of time and given its own link to the host (one end of a socket pair the host
made). The job comes over that link straight from the host — its id, limits and five pipe
ends (job input, stdout, stderr, results, clearance) — so a job never waits behind the zygote forking
another spare. A spare reads the job itself, locks itself down and becomes the job's harness:

    zygote ──fork──▶ spare (root)      new session; unshare(mount, ipc, uts); join the
                                       job's cgroup (open its CPU
                                       priority file); unmount /cg; a /proc that hides other
                                       uids' processes; a fresh size-limited /tmp; the job's
                                       key from the host; a warm-up at idle priority, in
                                       steps, stopping when the job comes; a fresh random
                                       seed; the seccomp filter's last part (the zygote
                                       loaded the rest before it forked) and the job's
                                       guard (sealed once, by the zygote, around a key
                                       slot the spare fills at install); the environment
                                       (SAFE_ENV), the empty capability bounding set and
                                       the job's text streams over fds 1 and 2 are the
                                       zygote's own, made before it forks
                                       ── the job arrives from the host ──
                                       read the job; its pipes onto fds 0-4; drop to the
                                       job's own uid, no capabilities, no new privileges;
                                       load tests.py, the guard in force; wait for the
                                       host's word (its check of the code); import
                                       solution.py; run the cases

One fork per job: forking and tearing down a process that holds torch costs ~5 ms of
CPU each way, so a keeper process per job (for a pid namespace per job) would cost a
third of the budget. Instead jobs share the sandbox's pid namespace but each has its own
uid (so it can neither see in /proc nor signal nor trace another job) and its own cgroup,
which the host kills whole when the job ends.

No process ever serves a second job.

The protocol with the host is :mod:`runner.sandbox.control`; the warm-up
:mod:`runner.sandbox.warmup`; a spare's lock-down :mod:`runner.sandbox.lockdown`; seeding
:mod:`runner.sandbox.seeding`; the fork loop :mod:`runner.sandbox.forkloop`.
"""

from __future__ import annotations

import contextlib
import gc
import json
import socket
import sys

from runner.sandbox import heap, hugepages, syscalls
from runner.sandbox.control import KEY_BYTES, RESULTS_FD, ZYGOTE_NAME
from runner.sandbox.forkloop import fork_loop
from runner.sandbox.lockdown import job_stdio, prepare_spare, set_job_environment
from runner.sandbox.warmup import warm_up


def serve(control: socket.socket) -> None:
    from runner.testing import guard, sealed

    sealed.require_supported()  # no spare without its guard: the host sees the zygote die
    filters = syscalls.compile_seccomp_filters()
    # Empty for every process this one forks: the bounding set limits only what an execve can
    # grant, so the capabilities the spares use to build each job's cell are untouched.
    syscalls.drop_capability_bounding_set()
    info = warm_up()
    set_job_environment()
    # Every job's guard, sealed once here around a key slot; each spare keys its own copy.
    slotted = guard.KeySlotGuard(KEY_BYTES, RESULTS_FD)
    stdio = job_stdio()
    gc.collect()
    gc.freeze()  # children inherit these objects without the collector touching (and copying) their pages
    heap.hold_free_chunks()  # a job's C allocations then come from fresh pages, not shared ones
    hugepages.collapse_self()  # then each fork and exit handles one entry per 2 MB, not 512 PTEs
    # The filter's large part, for this process and every spare (each adds the rest after its mounts).
    filters.zygote.load()
    control.send(json.dumps({"op": "ready", **info}).encode())
    forked = fork_loop()(control.fileno())
    if forked is None:
        return  # the host went away; bubblewrap takes every child down with us
    control.detach()  # a spare: the loop closed the control socket in it
    data, link_fd = forked
    prepare_spare(json.loads(data), socket.socket(fileno=link_fd), filters, stdio, slotted)


def main() -> None:
    fd = int(sys.argv[1])
    if len(sys.argv) > 2:  # the zygote's CPU group (runner.sandbox.cgroups.ZygoteCgroup), before any fork
        with open(sys.argv[2], "w") as fh:
            fh.write("0")
    syscalls.set_process_name(ZYGOTE_NAME)
    control = socket.socket(fileno=fd)
    with contextlib.suppress(BrokenPipeError, ConnectionResetError):
        serve(control)


if __name__ == "__main__":
    main()
