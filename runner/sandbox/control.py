"""The zygote's protocol with the host, and the names both sides share.

Messages on the control socket (SOCK_SEQPACKET, one message each): host → zygote
``b"<id>\n"`` + ``{"uid", "procs", "idle", "tmp_mb"}`` (JSON) + 1 fd: make a spare, already in
the job's cgroup and namespaces, listening on that link (the zygote's loop reads only the id:
:func:`split_message`; the spare reads the JSON). Zygote → host, one JSON object each:
``{"op": "ready", "python", "torch"}``, ``{"op": "exit", "id", "status"}`` when a spare's
process ends, ``{"op": "refused", "id"}`` for a message it cannot serve. On a spare's link,
host → spare: first the job's integrity key (32 raw bytes, sent before the spare is asked for;
the spare writes it into its copy of the guard the zygote sealed around a key slot:
``runner.testing.guard.KeySlotGuard``)
and one byte, :data:`WARM` or :data:`COLD` (whether to run the rest of the warm-up), then
``{"op": "job", "id", "cpu_s", "file_mb", "threads"}`` + 5 fds: the job's input (its payload, to
end of file), stdout, stderr, the result channel, and the *clearance* pipe, on which the host writes
:data:`CLEARED` once the learner's code may run (its source policy passed, checked while the spare
gets ready: ``Sandbox.run``'s ``cleared``) or closes it unwritten when it may not. The spare reads it
just before it imports ``solution.py`` (``runner.sandbox.harness.run``), so nothing of the learner's
code runs before the host has cleared it.
"""

from __future__ import annotations

import os

MAX_PAYLOAD = 64 * 1024 * 1024
KEY_BYTES = 32  # the job's integrity key (runner.testing.guard), the first message on a spare's link
RESULTS_FD = 3  # the job's result channel, where the harness's records and the guard's events go
CLEARANCE_FD = 4  # the host's word that the learner's code may run, read once and closed
CLEARED = b"\x01"  # on the clearance pipe: the code may run (end of file unwritten: it may not)
ZYGOTE_NAME = "td-zygote"  # the processes' names, as top, ps -o comm and perf show them
SPARE_NAME = "td-spare"  # a spare, then its job (what the job execs is named after the program)
# After the key, one byte: whether the spare runs the speculative part of its warm-up (warm_spare).
WARM, COLD = b"\x01", b"\x00"
SAFE_ENV = {
    "PATH": "/usr/bin:/bin",
    "HOME": "/tmp",
    "TMPDIR": "/tmp",
    "LANG": "C.UTF-8",
    "OMP_NUM_THREADS": "1",
    "MKL_NUM_THREADS": "1",
    "OPENBLAS_NUM_THREADS": "1",
    "NUMEXPR_NUM_THREADS": "1",
    "PYTHONDONTWRITEBYTECODE": "1",
    "PYTHONHASHSEED": "random",
}


def split_message(data: bytes) -> tuple[str, bytes] | None:
    """``b"<id>\n<json>"`` -> (id, json), or None where the id is missing or not plain ASCII
    letters, digits, ``-`` and ``_`` (at most 64): the exit notice quotes it as it is."""
    head, newline, body = data.partition(b"\n")
    if not newline or not 0 < len(head) <= 64 or not head.replace(b"-", b"").replace(b"_", b"").isalnum():
        return None  # bytes.isalnum: ASCII letters and digits only
    return head.decode("ascii"), body


def await_clearance(fd: int) -> bool:
    """Wait for the host's word on the clearance pipe ``fd`` (then closed): whether the learner's
    code may run. Anything but :data:`CLEARED` (end of file, a read error) means it may not."""
    try:
        return os.read(fd, 1) == CLEARED
    except OSError:
        return False
    finally:
        os.close(fd)


def read_all(fd: int, limit: int) -> bytes:
    chunks: list[bytes] = []
    size = 0
    while True:
        chunk = os.read(fd, 1 << 20)
        if not chunk:
            break
        size += len(chunk)
        if size > limit:
            raise ValueError("job payload too large")
        chunks.append(chunk)
    return b"".join(chunks)
