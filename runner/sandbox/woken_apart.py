"""A job's spare woken on a CPU of its own, not queued behind the host on the host's.

The host hands a job to its spare with a socket write and goes on to check the job's code (the
source policy, 0.4-0.9 ms), meant to overlap the spare's set-up. But the kernel queues a woken task
on the waker's CPU whenever the other CPUs do not look available to it, and on a virtual machine an
idle vCPU that has halted reads as "preempted", so nearly every lone job's spare waited on the
host's CPU for the check to end while the other CPU idled (docs/benchmarks.md, "Two CPUs, one
queue" and "Woken apart"). Moving the host away after the hand-over does not help: the spare's
next wake-up by the host (the end of its input) lands on the host's new CPU. So
:func:`woken_apart` pins the sleeping spare to the CPUs other than the host thread's before the
hand-over (the wake-up then puts it on one of them) and returns what gives it back every CPU it
had, which the host calls once the check is done, before any of the learner's code can run.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
from collections.abc import Callable, Sequence

_libc = ctypes.CDLL(None, use_errno=True)
_sched_getcpu = _libc.sched_getcpu
_sched_getcpu.restype = ctypes.c_int
_sched_getcpu.argtypes = []


def _nothing() -> None:
    return None


def woken_apart(pids: Sequence[int]) -> Callable[[], None]:
    """Pin the processes ``pids`` (a spare, asleep) to the CPUs they may use but this thread's
    own; returns what gives them their CPUs back. Nothing is changed (and nothing given back)
    for no ``pids``, where there is no other CPU, or where a process's CPUs cannot be read or set
    (it has gone: its run reports that)."""
    if not pids:
        return _nothing
    here = _sched_getcpu()
    pinned: list[tuple[int, set[int]]] = []
    for pid in pids:
        try:
            allowed = os.sched_getaffinity(pid)
            others = allowed - {here}
            if not others or here not in allowed:
                continue
            os.sched_setaffinity(pid, others)
        except OSError:
            continue
        pinned.append((pid, allowed))
    if not pinned:
        return _nothing

    def give_back() -> None:
        for pid, allowed in pinned:
            with contextlib.suppress(OSError):
                os.sched_setaffinity(pid, allowed)
        pinned.clear()

    return give_back
