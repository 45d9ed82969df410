"""The zygote's fork loop: one spare forked per message from the host, each spare's exit
reported; in C (``_forkserver.c``) where built, else in Python."""

from __future__ import annotations

import json
import os
import select
import socket
from collections.abc import Callable

from runner.sandbox.control import split_message

ForkLoop = Callable[[int], "tuple[bytes, int] | None"]


def fork_loop() -> ForkLoop:
    """The zygote's loop: fork a spare for each message from the host, report each spare's exit.

    The C loop (``runner/sandbox/_forkserver.c``, built by ``make setup``) runs no Python between forks,
    so the zygote writes almost none of the pages it shares with its spares (each such write is a
    copy-on-write fault, and splits the huge page it falls in for every later fork:
    docs/benchmarks.md, the twelfth pass). Without the built module, the same loop in Python.
    Either returns ``(the message's JSON, the link's fd)`` in each child and ``None`` in the
    zygote when the host goes away.
    """
    return compiled_loop() or serve_forks


def compiled_loop() -> ForkLoop | None:
    """The C loop (``runner/sandbox/_forkserver.c``), or None where the module is not built."""
    try:
        from runner.sandbox import _forkserver  # type: ignore[attr-defined]
    except ImportError:
        return None
    loop: ForkLoop = _forkserver.serve_forks
    return loop


def serve_forks(control_fd: int) -> tuple[bytes, int] | None:
    """:func:`fork_loop` in Python, where the C module is not built."""
    with socket.socket(fileno=os.dup(control_fd)) as control:
        return _serve_forks(control, control_fd)


def _serve_forks(control: socket.socket, control_fd: int) -> tuple[bytes, int] | None:
    children: dict[int, tuple[str, int]] = {}  # pidfd -> (job id, spare pid)
    poller = select.poll()
    poller.register(control, select.POLLIN)
    while True:
        for fd, _ in poller.poll():
            if fd != control.fileno():
                job_id, pid = children.pop(fd)
                poller.unregister(fd)
                os.close(fd)
                _, wait_status = os.waitpid(pid, 0)
                status = os.waitstatus_to_exitcode(wait_status)
                control.send(json.dumps({"op": "exit", "id": job_id, "status": status}).encode())
                continue
            data, fds, flags, _ = socket.recv_fds(control, 65536, 4)
            if not data:
                return None
            framed = split_message(data)
            if framed is None or len(fds) != 1 or flags & (socket.MSG_TRUNC | socket.MSG_CTRUNC):
                for extra in fds:
                    os.close(extra)
                control.send(json.dumps({"op": "refused", "id": framed and framed[0]}).encode())
                continue
            job_id, body = framed
            pid = os.fork()
            if pid == 0:
                for pidfd in children:
                    os.close(pidfd)
                control.close()
                os.close(control_fd)
                return body, fds[0]
            os.close(fds[0])
            pidfd = os.pidfd_open(pid)
            children[pidfd] = (job_id, pid)
            poller.register(pidfd, select.POLLIN)
