"""The zygote: a process inside the sandbox with torch imported, that forks one child per job.

It never runs learner code and never sees a job's data: the host sends it only the
job's id, limits and four pipe ends (job input, stdout, stderr, results). The forked
child reads the job itself, isolates itself further and becomes the job's harness:

    zygote ──fork──▶ keeper (root)              unshare(mount, pid); join the job cgroup;
                       │                        fresh size-limited /tmp; unmount /cg
                       └──fork──▶ harness       pid 1 of a new pid namespace; fresh /proc;
                                                drop to a per-job uid, no capabilities,
                                                no new privileges, seccomp; run the cases

When the harness (pid 1 of its namespace) exits, the kernel kills everything it left
behind; the host also kills the job's cgroup. No process ever serves a second job.

Messages on the control socket (SOCK_SEQPACKET, one JSON object per message):
host → zygote ``{"op": "job", "id", "uid", "procs", "tmp_mb", "cpu_s", "file_mb"}`` + 4 fds;
zygote → host ``{"op": "ready", "python", "torch"}``, ``{"op": "started", "id"}``,
``{"op": "exit", "id", "status"}``.
"""

from __future__ import annotations

import json
import os
import random
import resource
import select
import socket
import sys
from typing import Any

from runner import syscalls

MAX_PAYLOAD = 64 * 1024 * 1024
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


def warm_up() -> dict[str, str]:
    """Import and exercise torch once, so every forked child starts warm."""
    import torch
    import torch.nn as nn
    import torch.nn.functional  # noqa: F401
    import torch.optim  # noqa: F401

    import runner.harness  # noqa: F401
    import runner.testing  # noqa: F401

    torch.set_num_threads(1)
    torch.set_num_interop_threads(1)
    model = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 1))
    handle = model[2].register_full_backward_hook(lambda *_: None)
    loss = nn.functional.mse_loss(model(torch.ones(1, 3)), torch.ones(1, 1))
    loss.backward()
    handle.remove()
    torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9).step()
    return {"python": sys.version.split()[0], "torch": torch.__version__.split("+")[0]}


def _describe(exc: BaseException) -> str:
    import traceback

    frames = traceback.extract_tb(exc.__traceback__)
    where = f" at {frames[-1].name}:{frames[-1].lineno}" if frames else ""
    return f"{exc!r}{where}"


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


def become_harness(msg: dict[str, Any], fds: list[int], seccomp_filter: Any) -> None:
    """Runs in the keeper child. Never returns."""
    job_in, stdout_w, stderr_w, result_w = fds
    status = 70
    try:
        syscalls.unshare(syscalls.CLONE_NEWNS | syscalls.CLONE_NEWPID)
        syscalls.make_mounts_private()
        for procs in msg["procs"]:
            with open(procs, "w") as fh:
                fh.write("0")
        for controller in os.listdir("/cg"):
            syscalls.umount_lazy(f"/cg/{controller}")
        uid = int(msg["uid"])
        syscalls.mount(
            "tmpfs", "/tmp", "tmpfs", syscalls.MS_NOSUID | syscalls.MS_NODEV,
            f"size={int(msg['tmp_mb'])}m,nr_inodes=4096,mode=0700,uid={uid},gid={uid}",
        )
        payload = json.loads(read_all(job_in, MAX_PAYLOAD))
        os.close(job_in)
        for name, text in (("solution.py", payload["code"]), ("tests.py", payload["tests_source"])):
            path = os.path.join("/tmp", name)
            with open(path, "w", encoding="utf-8", errors="surrogateescape") as fh:
                fh.write(text)
            os.chmod(path, 0o444)
        pid = os.fork()
        if pid == 0:
            run_harness(payload, uid, msg, stdout_w, stderr_w, result_w, seccomp_filter)
        for fd in (stdout_w, stderr_w, result_w):
            os.close(fd)
        _, wait_status = os.waitpid(pid, 0)
        status = os.waitstatus_to_exitcode(wait_status)
        status = 128 - status if status < 0 else status
    except BaseException as exc:  # the keeper's own failure is the platform's fault
        try:
            os.write(result_w, (json.dumps({"type": "sandbox_error", "message": _describe(exc)}) + "\n").encode())
        except OSError:
            pass
        status = 71
    finally:
        os._exit(status)


def run_harness(
    payload: dict[str, Any], uid: int, msg: dict[str, Any], stdout_w: int, stderr_w: int, result_w: int,
    seccomp_filter: Any,
) -> None:
    """Runs as pid 1 of the job's pid namespace. Never returns."""
    try:
        syscalls.mount("proc", "/proc", "proc", syscalls.MS_NOSUID | syscalls.MS_NODEV | syscalls.MS_NOEXEC)
        with open("/proc/self/oom_score_adj", "w") as fh:  # the OOM killer picks the harness first
            fh.write("1000")
        devnull = os.open("/dev/null", os.O_RDONLY)
        os.dup2(devnull, 0)
        os.dup2(stdout_w, 1)
        os.dup2(stderr_w, 2)
        os.dup2(result_w, 3)
        os.closerange(4, 65536)
        cpu = int(msg["cpu_s"])
        resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
        file_bytes = int(msg["file_mb"]) * 2**20
        resource.setrlimit(resource.RLIMIT_FSIZE, (file_bytes, file_bytes))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        resource.setrlimit(resource.RLIMIT_NOFILE, (256, 256))
        os.environ.clear()
        os.environ.update(SAFE_ENV)
        os.chdir("/tmp")
        syscalls.drop_capability_bounding_set()
        os.setgroups([])
        os.setresgid(uid, uid, uid)
        os.setresuid(uid, uid, uid)
        syscalls.prctl(syscalls.PR_SET_NO_NEW_PRIVS, 1)
        seccomp_filter.load()
        sys.stdout = open(1, "w", buffering=1, encoding="utf-8", errors="backslashreplace", closefd=False)
        sys.stderr = open(2, "w", buffering=1, encoding="utf-8", errors="backslashreplace", closefd=False)
        reseed()
    except BaseException as exc:
        os.write(result_w, (json.dumps({"type": "sandbox_error", "message": _describe(exc)}) + "\n").encode())
        os._exit(71)
    from runner import harness

    try:
        harness.run(payload, harness.ResultChannel(3), "/tmp")
        sys.stdout.flush()
        sys.stderr.flush()
    except BaseException:
        os._exit(1)
    os._exit(0)


def reseed() -> None:
    """Fresh random state for every child: none is inherited from the zygote."""
    import torch

    seed = int.from_bytes(os.urandom(8), "little") & ((1 << 63) - 1)
    random.seed(seed)
    torch.manual_seed(seed)
    try:
        import numpy

        numpy.random.seed(seed & 0xFFFFFFFF)
    except ImportError:
        pass


def serve(control: socket.socket) -> None:
    seccomp_filter = syscalls.build_seccomp_filter()
    info = warm_up()
    control.send(json.dumps({"op": "ready", **info}).encode())
    children: dict[int, tuple[str, int]] = {}  # pidfd -> (job id, pid)
    poller = select.poll()
    poller.register(control, select.POLLIN)
    while True:
        for fd, _ in poller.poll():
            if fd == control.fileno():
                data, fds, _, _ = socket.recv_fds(control, 65536, 4)
                if not data:
                    return  # host went away
                msg = json.loads(data)
                if msg.get("op") != "job" or len(fds) != 4:
                    for extra in fds:
                        os.close(extra)
                    continue
                pid = os.fork()
                if pid == 0:
                    control.close()
                    become_harness(msg, fds, seccomp_filter)
                for extra in fds:
                    os.close(extra)
                pidfd = os.pidfd_open(pid)
                children[pidfd] = (msg["id"], pid)
                poller.register(pidfd, select.POLLIN)
                control.send(json.dumps({"op": "started", "id": msg["id"]}).encode())
            else:
                job_id, pid = children.pop(fd)
                poller.unregister(fd)
                os.close(fd)
                _, wait_status = os.waitpid(pid, 0)
                control.send(
                    json.dumps({"op": "exit", "id": job_id, "status": os.waitstatus_to_exitcode(wait_status)}).encode()
                )


def main() -> None:
    fd = int(sys.argv[1])
    control = socket.socket(fileno=fd)
    try:
        serve(control)
    except (BrokenPipeError, ConnectionResetError):
        pass


if __name__ == "__main__":
    main()
