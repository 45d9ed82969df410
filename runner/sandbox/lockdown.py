"""A spare's lock-down: in the forked child, before any job exists, its cell (session,
namespaces, cgroup, /proc, /tmp, seccomp, guard), then the job's pipes, limits and uid, then
the harness. And what the zygote sets once for every job (environment, text streams)."""

from __future__ import annotations

import contextlib
import io
import json
import os
import resource
import socket
import sys
from typing import TYPE_CHECKING, Any

from runner.sandbox import compiled, syscalls
from runner.sandbox.control import (
    CLEARANCE_FD,
    KEY_BYTES,
    MAX_PAYLOAD,
    RESULTS_FD,
    SAFE_ENV,
    SPARE_NAME,
    WARM,
    await_clearance,
    read_all,
)
from runner.sandbox.seeding import reseed
from runner.sandbox.warmup import GroupPriority, warm_spare

if TYPE_CHECKING:
    from runner.testing import guard

JobStdio = tuple[io.TextIOWrapper, io.TextIOWrapper]  # a job's sys.stdout and sys.stderr


def job_stdio() -> JobStdio:
    """The job's ``sys.stdout`` and ``sys.stderr``: text over file descriptors 1 and 2, line
    buffered, UTF-8 with what cannot be encoded escaped. Made once, by the zygote, before it
    forks: a spare only puts them in place once it has moved the job's pipes onto 1 and 2. Made
    in the spare they cost each job ~0.12 ms of CPU (the codec's lookup and the io machinery's
    first call, copy-on-write faults mostly; docs/benchmarks.md, the sixteenth pass). Never
    written to before a job has them: whatever they buffered, every job would inherit."""
    return (
        open(1, "w", buffering=1, encoding="utf-8", errors="backslashreplace", closefd=False),
        open(2, "w", buffering=1, encoding="utf-8", errors="backslashreplace", closefd=False),
    )


def prepare_spare(
    msg: dict[str, Any],
    link: socket.socket,
    filters: syscalls.SandboxFilters,
    stdio: JobStdio,
    slotted: guard.KeySlotGuard | None = None,
) -> None:
    """Runs in the forked child, before any job exists. Never returns.

    Everything slow (joining the cgroup, new namespaces and mounts) happens here, ahead of
    time; when the job comes it only hands over its pipes.
    """
    try:
        syscalls.set_process_name(SPARE_NAME)
        os.setsid()
        syscalls.unshare(syscalls.CLONE_NEWNS | syscalls.CLONE_NEWIPC | syscalls.CLONE_NEWUTS)
        syscalls.make_mounts_private()
        for procs in msg["procs"]:
            syscalls.write_control(procs, b"0")
        group = None
        if idle := msg.get("idle"):  # kept open past the unmount, closed before the job
            fd = os.open(idle["path"], os.O_WRONLY | os.O_CLOEXEC | os.O_NOFOLLOW)
            group = GroupPriority(fd, idle["idle"], idle["normal"])
        syscalls.umount_lazy("/cg")  # its own mount: the controllers' binds under it go with it
    except BaseException:
        os._exit(71)
    run_harness(msg, link, filters, stdio, group, slotted)


def run_harness(
    msg: dict[str, Any],
    link: socket.socket,
    filters: syscalls.SandboxFilters,
    stdio: JobStdio,
    group: GroupPriority | None = None,
    slotted: guard.KeySlotGuard | None = None,
) -> None:
    """Wait for the job, lock down, run it. Never returns."""
    result_w = -1
    try:
        # A /proc of our own that shows only this job's processes (each job has its own uid).
        syscalls.mount(
            "proc",
            "/proc",
            "proc",
            syscalls.MS_NOSUID | syscalls.MS_NODEV | syscalls.MS_NOEXEC,
            "hidepid=invisible",
        )
        uid = int(msg["uid"])
        syscalls.mount(
            "tmpfs",
            "/tmp",
            "tmpfs",
            syscalls.MS_NOSUID | syscalls.MS_NODEV,
            f"size={int(msg['tmp_mb'])}m,nr_inodes=4096,mode=0700,uid={uid},gid={uid}",
        )
        syscalls.write_control("/proc/self/oom_score_adj", b"1000")  # the OOM killer picks the harness first
        from runner.testing import guard

        first = link.recv(KEY_BYTES + 2)  # the host sent it before it asked us for this spare
        if len(first) != KEY_BYTES + 1:
            os._exit(72)  # the host dropped this spare before it was made
        # The guard sealed by the zygote around a key slot takes this job's key at install
        # (runner.testing.guard.KeySlotGuard); its events go to RESULTS_FD once the job came.
        pending = guard.PendingGuard(first[:KEY_BYTES], RESULTS_FD, slotted)
        speculative = first[KEY_BYTES:] == WARM
        del first
        # What needs nothing from the job is done before it exists, the seccomp filter included
        # (the spare's part, which refuses its set-up's calls, loaded after its last mount; the
        # zygote's part this process has had since its fork):
        # the job comes to a process that only has to take its pipes and drop to its uid. It is
        # done before the speculative warm-up too (which needs none of what it takes away), so a
        # job that comes while a warm-up step runs waits for that step and the reseed only.
        devnull = os.open("/dev/null", os.O_RDONLY)
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        resource.setrlimit(resource.RLIMIT_NOFILE, (256, 256))
        os.chdir("/tmp")  # the environment is the zygote's: SAFE_ENV (set_job_environment)
        filters.spare.load()
        warm_spare(link, speculative, group)
        if group is not None:
            group.close()  # the job gets no handle on its group
        reseed()  # this process serves one job only, so seeding it now is as fresh as after the job came
        data, fds, _, _ = socket.recv_fds(link, 65536, 5)
        link.close()
        if not data or len(fds) != 5:
            os._exit(72)  # the host dropped this spare: no job will come
        job = json.loads(data)
        job_in, stdout_w, stderr_w, result_w, clearance = fds
        payload = compiled.decode_payload(read_all(job_in, MAX_PAYLOAD))
        os.close(job_in)
        for name, text in (("solution.py", payload["code"]), ("tests.py", payload["tests_source"])):
            write_read_only(os.path.join("/tmp", name), text.encode("utf-8", "surrogateescape"))
        os.dup2(devnull, 0)
        os.dup2(stdout_w, 1)
        os.dup2(stderr_w, 2)
        os.dup2(result_w, RESULTS_FD)
        result_w = RESULTS_FD
        os.dup2(clearance, CLEARANCE_FD)
        os.closerange(CLEARANCE_FD + 1, 65536)
        cpu = int(job["cpu_s"])
        resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
        file_bytes = int(job["file_mb"]) * 2**20
        resource.setrlimit(resource.RLIMIT_FSIZE, (file_bytes, file_bytes))
        os.setgroups([])
        os.setresgid(uid, uid, uid)
        os.setresuid(uid, uid, uid)
        syscalls.prctl(syscalls.PR_SET_NO_NEW_PRIVS, 1)
        sys.stdout, sys.stderr = stdio  # the zygote's (job_stdio); 1 and 2 are the job's pipes now
    except BaseException as exc:
        if result_w >= 0:
            with contextlib.suppress(OSError):
                os.write(
                    result_w,
                    (json.dumps({"type": "sandbox_error", "message": _describe(exc)}) + "\n").encode(),
                )
        os._exit(71)
    from runner.sandbox import harness

    # No new thread or process once the harness is ready (the filter's job part, loaded just
    # before the learner's import), unless the problem allows them ([limits] threads = true).
    single_task = None if job.get("threads") else filters.job.load
    try:
        harness.run(
            payload,
            harness.ResultChannel(RESULTS_FD),
            "/tmp",
            pending,
            single_task,
            cleared=lambda: await_clearance(CLEARANCE_FD),
        )
        sys.stdout.flush()
        sys.stderr.flush()
        with contextlib.suppress(OSError):  # the learner's code may have closed it already
            os.close(RESULTS_FD)  # the host reads the channel when it closes (runner.sandbox.channel.collect)
    except BaseException:
        os._exit(1)
    os._exit(0)


def _describe(exc: BaseException) -> str:
    import traceback

    frames = traceback.extract_tb(exc.__traceback__)
    where = f" at {frames[-1].name}:{frames[-1].lineno}" if frames else ""
    return f"{exc!r}{where}"


def set_job_environment() -> None:
    """The environment every job gets, exactly :data:`SAFE_ENV`, set once in the zygote before it
    forks (a spare clearing and refilling it cost ~0.4 ms of CPU). Bubblewrap started the zygote
    with :data:`SAFE_ENV` and the ``PYTHONPATH`` of the judge's own code, which the interpreter
    read at its start; anything an import added goes too."""
    os.environ.clear()
    os.environ.update(SAFE_ENV)


def write_read_only(path: str, data: bytes) -> None:
    """A new file holding ``data``, mode 0444 (no file object: a few syscalls, on the job's path)."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o444)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
        os.fchmod(fd, 0o444)  # whatever the umask
    finally:
        os.close(fd)
