"""The job's input pipe: as much of the payload written at once as the pipe takes, grown for a
large job; the rest fed by ``Sandbox._feed`` once the job runs."""

from __future__ import annotations

import contextlib
import fcntl
import os

RESULT_PIPE_BYTES = 1 << 20  # its buffer: a large record fits without waiting for a read
F_SETPIPE_SZ = 1031


def prefeed(fd: int, data: bytes) -> memoryview:
    """Write as much of ``data`` as the pipe takes without blocking (a pipe holds 64 KB; it is
    grown up to 1 MB for a larger job); what did not fit is returned, for ``Sandbox._feed``."""
    if len(data) > 1 << 16:
        with contextlib.suppress(OSError):
            fcntl.fcntl(fd, F_SETPIPE_SZ, min(len(data), RESULT_PIPE_BYTES))
    os.set_blocking(fd, False)
    view = memoryview(data)
    with contextlib.suppress(BlockingIOError):
        while view:
            view = view[os.write(fd, view) :]
    return view
