"""The interpreter's after-fork work a spare can be spared: logging's handler locks and
threading's after-fork hook, skipped while the zygote forks (it runs one thread)."""

from __future__ import annotations

import logging
import threading
import types


def skip_handler_lock_reinit() -> bool:
    """Spare every child the re-creation of the zygote's logging handler locks after its fork.

    ``logging`` re-creates each handler's lock in a forked child, in case another thread held it
    when the process forked. torch's import leaves ~38 handlers, and re-creating their locks cost
    every spare ~0.5 ms of CPU and ~195 copy-on-write faults (measured in forks of a warm
    zygote). The zygote runs Python on one thread and does not log while it forks, so no handler
    lock can be held then: with one thread, the registry of locks to re-create is emptied (True).
    Handlers a job creates are still registered, in the job. Returns False, changing nothing,
    with another thread running or on a Python without that registry.
    """
    registry = getattr(logging, "_at_fork_reinit_lock_weakset", None)
    if registry is None or threading.active_count() != 1:
        return False
    registry.clear()
    return True


def _no_after_fork() -> None:
    """What threading's after-fork hook does in a child of a process with one thread: nothing
    that changes its state (see :class:`ThreadingAfterFork`)."""


class ThreadingAfterFork:
    """Spare every spare the ``threading`` module's after-fork hook, and give it back to the job.

    ``threading`` registers ``threading._after_fork`` to run in every forked child: it rebuilds
    the module's thread table and re-creates its locks, in case another thread held them or ran
    when the process forked. In a child of a process that had one thread and held none of them,
    it rebuilds the same table (the child's thread has the parent's ident) and locks as they were.
    It cost each spare ~50 copy-on-write faults and ~0.12 ms of CPU (forks of a warm zygote;
    docs/benchmarks.md, the twelfth pass). The hook cannot be unregistered, so :meth:`skip` gives
    the registered function the body of a no-op while the zygote forks (it has one thread: the
    C fork loop runs no Python, and nothing in the zygote starts a thread), and each spare
    puts the real body back first thing (:meth:`restore`), so a job that starts threads and forks gets
    the module's real hook in its own children. ``skip`` changes nothing (False) with another
    thread running or without that hook.
    """

    def __init__(self) -> None:
        self.hook = getattr(threading, "_after_fork", None)
        self.code = getattr(self.hook, "__code__", None)

    def skip(self) -> bool:
        if not isinstance(self.hook, types.FunctionType) or threading.active_count() != 1:
            return False
        if self.hook.__code__.co_freevars:
            return False  # a closure's code cannot be swapped for one without its cells
        self.hook.__code__ = _no_after_fork.__code__
        return True

    def restore(self) -> None:
        if isinstance(self.hook, types.FunctionType) and self.code is not None:
            self.hook.__code__ = self.code
