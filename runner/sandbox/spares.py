"""The pool of spares as the host sees it: its state for monitoring, and each waiting spare's
making and CPU priority (asked for, made, put back at normal priority when its job comes)."""

from __future__ import annotations

import contextlib
import os
from dataclasses import dataclass
from typing import Any

from runner.sandbox.cgroups import JobCgroup


@dataclass(frozen=True)
class PoolState:
    """The pool at one moment, as monitoring and tests read it (:meth:`Sandbox.pool_state`)."""

    spares_wanted: int  # spares kept ready
    spares_ready: int  # asked for and waiting for a job
    spares_made: int  # of those, made: in their job's group (their making done) and alive
    jobs_in_flight: int  # from taking their spare to their end


def idle_message(group: JobCgroup) -> dict[str, str] | None:
    """Where and how the spare puts its own group at idle CPU priority while it warms up."""
    idle = group.idle_setting()
    if idle is None:
        return None
    path, setting = idle
    return {"path": path, "idle": setting.idle, "normal": setting.normal}


def is_made(spare: dict[str, Any]) -> bool:
    """Whether a waiting spare is made: in its job's group (its making done), not merely asked
    for, and alive. Once seen in its group it stays there until it dies (then its waiter is
    set), so its group's process list is read until then only."""
    if not spare["made"]:
        spare["pids"] = spare["group"].pids()  # its one process, once there (runner.sandbox.woken_apart)
        spare["made"] = bool(spare["pids"])
    return bool(spare["made"]) and not spare["waiter"]["event"].is_set()


def normal_priority(spare: dict[str, Any]) -> bool:
    """Give a spare that may still be warming up at idle priority (``runner.sandbox.warmup.warm_spare``)
    the normal one back, now that a job waits for it: its group's and the process's nice (its
    only process is the spare itself). The spare sets both back itself too, before the job
    runs, so nothing depends on this succeeding. False when the spare has not joined its group
    yet (it is still being made, in the zygote's group).

    A spare asked for without the warm-up (jobs filled every CPU: ``Sandbox._prepare``) never
    lowers its priority: for it only whether it is made is asked, which the host knows already
    for most (``is_made``), without a write or a read of its group's files."""
    if not spare["warm"]:
        return is_made(spare)
    group = spare["group"]
    group.normal_priority()
    pids = group.pids()
    for pid in pids:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.setpriority(os.PRIO_PROCESS, pid, 0)
    return bool(pids)
