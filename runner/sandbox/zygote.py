"""The zygote: a process inside the sandbox with torch imported, that forks one child per job.

It never runs learner code and never sees a job's data: it only forks *spares*, each
prepared ahead of time and given its own link to the host (one end of a socket pair the host
made). The job comes over that link straight from the host — its id, limits and four pipe
ends (job input, stdout, stderr, results) — so a job never waits behind the zygote forking
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
                                       read the job; its pipes onto fds 0-3; drop to the
                                       job's own uid, no capabilities, no new privileges;
                                       run the cases

One fork per job: forking and tearing down a process that holds torch costs ~5 ms of
CPU each way, so a keeper process per job (for a pid namespace per job) would cost a
third of the budget. Instead jobs share the sandbox's pid namespace but each has its own
uid (so it can neither see in /proc nor signal nor trace another job) and its own cgroup,
which the host kills whole when the job ends.

No process ever serves a second job.

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
``{"op": "job", "id", "cpu_s", "file_mb"}`` + 4 fds.
"""

from __future__ import annotations

import contextlib
import ctypes
import functools
import gc
import io
import json
import logging
import os
import random
import resource
import select
import socket
import sys
import threading
import types
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from runner.sandbox import compiled, heap, hugepages, syscalls

if TYPE_CHECKING:
    from runner.testing import guard

MAX_PAYLOAD = 64 * 1024 * 1024
KEY_BYTES = 32  # the job's integrity key (runner.testing.guard), the first message on a spare's link
RESULTS_FD = 3  # the job's result channel, where the harness's records and the guard's events go
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


def warm_up() -> dict[str, str]:
    """Import and exercise torch once, so every forked child starts warm."""
    import torch
    import torch._subclasses.schema_check_mode  # gradcheck's lazy import on failure (runner/testing/checks)
    import torch.nn
    import torch.nn.functional
    import torch.optim

    import runner.sandbox.harness
    import runner.testing
    import runner.testing.guard

    torch.set_num_threads(1)
    torch.set_num_interop_threads(1)
    runner.testing.guard.warm_up()
    skip_absent_accelerators()
    torch_seeder()
    numpy_reseeder()
    exercise()
    return {"python": sys.version.split()[0], "torch": torch.__version__.split("+")[0]}


def _seed_nothing(*_args: Any, **_kwargs: Any) -> None:
    """Seeding a device this machine does not have: nothing to do."""


def skip_absent_accelerators() -> None:
    """Let ``torch.manual_seed`` seed only the devices that exist.

    On a machine without CUDA, XPU or MTIA, torch still queues a seed for each of them and
    records the caller's stack with ``traceback.format_stack()`` (for an error message at a
    device initialisation that can never happen): about 0.1–0.5 ms per ``manual_seed``, and
    problems call it several times per case. Their own documentation says these functions are
    "silently ignored" without the device, which is what they become here.
    """
    import torch

    for name in ("cuda", "xpu", "mtia"):
        device = getattr(torch, name, None)
        if device is None or device.is_available():
            continue
        for function in ("manual_seed", "manual_seed_all", "seed", "seed_all"):
            if hasattr(device, function):
                setattr(device, function, _seed_nothing)


def exercise() -> None:
    """A tiny training step through the code paths the problems use (hooks, autograd, optim).

    The zygote runs it once to load everything; each spare runs it again, step by step, while it
    waits for a job (:func:`warm_spare`), so the copy-on-write page faults it causes are paid
    before the job, not during it.
    """
    state: dict[str, Any] = {}
    for step in EXERCISE_STEPS:
        step(state)


def _build(state: dict[str, Any]) -> None:
    import torch.nn as nn

    model = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 1))
    state["model"] = model
    state["handle"] = model[2].register_full_backward_hook(lambda *_: None)


def _forward(state: dict[str, Any]) -> None:
    import torch
    import torch.nn as nn

    state["loss"] = nn.functional.mse_loss(state["model"](torch.ones(1, 3)), torch.ones(1, 1))


def _backward(state: dict[str, Any]) -> None:
    state.pop("loss").backward()
    state.pop("handle").remove()


def _optimizer_step(state: dict[str, Any]) -> None:
    import torch

    torch.optim.SGD(state.pop("model").parameters(), lr=0.1, momentum=0.9).step()
    json.dumps({"warm": [1.0, 2, None]})


def _judge_paths(_state: dict[str, Any]) -> None:
    """What the harness and the problems' tests do around every case: seeds, hook windows,
    captured output, encoding a value."""
    import torch
    import torch.nn as nn

    from runner import testing
    from runner.records import values
    from runner.sandbox import harness

    with testing.shifted_seed(1), contextlib.redirect_stdout(harness.BoundedText(100)):
        torch.manual_seed(0)
        print("warm")
        with testing.observe_hooks() as log:
            layer = nn.Linear(2, 1)
            layer.register_forward_hook(lambda *_: None).remove()
            layer(torch.randn(1, 2))
    values.encode({"summary": log.summary(), "tensor": torch.randn(2, 2), "list": [1.0, 2, None, "a", True]})


_PASS_THROUGH: list[Any] = []


def _pass_through_modes() -> tuple[Any, Any]:
    """A torch function mode and a dispatch mode that only call through (classes made once)."""
    if not _PASS_THROUGH:
        from torch.overrides import TorchFunctionMode
        from torch.utils._python_dispatch import TorchDispatchMode

        def call(_mode: Any, func: Any, _types: Any, args: Any = (), kwargs: Any = None) -> Any:
            return func(*args, **(kwargs or {}))

        _PASS_THROUGH.append(type("WarmFunctions", (TorchFunctionMode,), {"__torch_function__": call}))
        _PASS_THROUGH.append(type("WarmDispatch", (TorchDispatchMode,), {"__torch_dispatch__": call}))
    return _PASS_THROUGH[0], _PASS_THROUGH[1]


def _under_modes(_state: dict[str, Any]) -> None:
    """A forward and backward pass under a function mode and a dispatch mode, as the guard's
    operation checks run the learner's code (``runner.testing.ops``)."""
    import torch
    import torch.nn as nn

    functions, dispatch = _pass_through_modes()
    with functions(), dispatch():
        model = nn.Sequential(nn.Linear(3, 2), nn.Tanh())
        model(torch.ones(1, 3)).sum().backward()


# A job that comes while a spare warms up waits for the step under way (warm_spare): no step
# is long (in a fork of a warm zygote, building the model and its first forward pass took
# ~1.5 ms each, ~4.3 ms as one step).
EXERCISE_STEPS: tuple[Callable[[dict[str, Any]], None], ...] = (
    _build,
    _forward,
    _backward,
    _optimizer_step,
    _judge_paths,
    _under_modes,
)
IDLE_NICE = 19  # the speculative warm-up's nice value (see warm_spare)


class GroupPriority:
    """The spare's own job group's CPU priority, through a file it opened before the cgroup
    tree was unmounted (``runner.sandbox.cgroups.JobCgroup.idle_setting``); closed before the job."""

    def __init__(self, fd: int, idle: str, normal: str) -> None:
        self.fd, self._idle, self._normal = fd, idle.encode(), normal.encode()

    def idle(self) -> None:
        os.pwrite(self.fd, self._idle, 0)

    def normal(self) -> None:
        os.pwrite(self.fd, self._normal, 0)

    def close(self) -> None:
        os.close(self.fd)


def warm_spare(link: socket.socket, speculative: bool = True, group: GroupPriority | None = None) -> int:
    """Run the warm-up steps (:func:`exercise`, then :func:`prefault_job`) while no job has come.
    The host leaves them out (``speculative=False``) when it asks for the spare while jobs occupy
    every CPU (``runner.sandbox.host.Sandbox._prepare``). What the job needs for certain and is the
    same for every job (its guard, sealed around a key slot) the zygote did once, before it forked.

    The warm-up is speculative: it moves page faults from the job to the spare, at a cost (its
    steps fault pages a job may never touch). So it runs at idle priority: on an idle machine it
    finishes long before the job comes and the job starts warm; on a busy one it gets only
    spare CPU, and it stops at the first step boundary after the job arrives (the host sets the
    spare's priority back to normal when it hands the job over, so an unfinished step never
    holds the job up for long). Returns the number of steps run.

    Idle priority is the spare's job group's (``group``: ``cpu.idle``, or the lowest CPU weight)
    as well as the process's nice 19. The group's is the one that counts: the kernel shares the
    CPU between groups first (each job group is one, ``runner.sandbox.cgroups``; without CPU groups,
    each session is one with autogroup scheduling), whatever the nice values of their
    processes, so with its nice alone the warm-up took CPU from the jobs as an equal
    (docs/benchmarks.md, the sixth and seventh passes). Both are set back before this returns;
    the group's setting raises where it cannot be, and the spare then dies before its job.

    Raising the process's priority back needs ``CAP_SYS_NICE``, which the spare holds until it
    drops every capability, before the job's code runs.
    """
    if not speculative:
        return 0
    poller = select.poll()
    poller.register(link, select.POLLIN | select.POLLHUP)
    state: dict[str, Any] = {}
    steps = [functools.partial(step, state) for step in EXERCISE_STEPS] + [prefault_job]
    done = 0
    os.setpriority(os.PRIO_PROCESS, 0, IDLE_NICE)
    try:
        if group is not None:
            group.idle()
        for step in steps:
            if poller.poll(0):
                break
            step()
            done += 1
    finally:
        os.setpriority(os.PRIO_PROCESS, 0, 0)
        if group is not None:
            # Raises where it cannot (the spare then dies before its job): no job runs with its
            # group at idle priority.
            group.normal()
    return done


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


def prepare_spare(
    msg: dict[str, Any],
    link: socket.socket,
    seccomp_filter: syscalls.SeccompProgram,
    stdio: JobStdio,
    slotted: guard.KeySlotGuard | None = None,
    threading_after_fork: ThreadingAfterFork | None = None,
) -> None:
    """Runs in the forked child, before any job exists. Never returns.

    Everything slow (joining the cgroup, new namespaces and mounts) happens here, ahead of
    time; when the job comes it only hands over its pipes.
    """
    try:
        syscalls.set_process_name(SPARE_NAME)
        if threading_after_fork is not None:
            threading_after_fork.restore()  # the job's own forks get threading's real hook
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
    run_harness(msg, link, seccomp_filter, stdio, group, slotted)


def run_harness(
    msg: dict[str, Any],
    link: socket.socket,
    seccomp_filter: syscalls.SeccompProgram,
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
        seccomp_filter.load()
        warm_up_steps = warm_spare(link, speculative, group)
        if group is not None:
            group.close()  # the job gets no handle on its group
        reseed()  # this process serves one job only, so seeding it now is as fresh as after the job came
        data, fds, _, _ = socket.recv_fds(link, 65536, 4)
        link.close()
        if not data or len(fds) != 4:
            os._exit(72)  # the host dropped this spare: no job will come
        job = json.loads(data)
        job_in, stdout_w, stderr_w, result_w = fds
        payload = compiled.decode_payload(read_all(job_in, MAX_PAYLOAD))
        os.close(job_in)
        for name, text in (("solution.py", payload["code"]), ("tests.py", payload["tests_source"])):
            write_read_only(os.path.join("/tmp", name), text.encode("utf-8", "surrogateescape"))
        os.dup2(devnull, 0)
        os.dup2(stdout_w, 1)
        os.dup2(stderr_w, 2)
        os.dup2(result_w, RESULTS_FD)
        result_w = RESULTS_FD
        os.closerange(RESULTS_FD + 1, 65536)
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

    try:
        harness.run(payload, harness.ResultChannel(RESULTS_FD), "/tmp", pending, warm_up_steps)
        sys.stdout.flush()
        sys.stderr.flush()
        with contextlib.suppress(OSError):  # the learner's code may have closed it already
            os.close(RESULTS_FD)  # the host reads the channel when it closes (runner.sandbox.host._collect)
    except BaseException:
        os._exit(1)
    os._exit(0)


# A small solution-like module: compiling it once in the spare makes the compiler's first
# copy-on-write faults there, not in the job's compile of solution.py.
_SAMPLE_SOURCE = """
import torch
import torch.nn as nn
from torch import Tensor


class Model(nn.Module):
    def __init__(self, n: int = 3) -> None:
        super().__init__()
        self.layers = nn.ModuleList([nn.Linear(n, n) for _ in range(2)])

    def forward(self, x: Tensor) -> Tensor:
        for layer in self.layers:
            x = torch.relu(layer(x)) if x.dim() > 1 else x
        return x


def solve(x, *args, scale=1.0, **kwargs):
    captured = {}
    values = [v * scale for v in range(10) if v % 2 == 0]
    try:
        total = sum(values) / len(values)
    except ZeroDivisionError as exc:
        raise ValueError(f"empty: {exc!r}") from exc
    finally:
        captured["done"] = True
    with torch.no_grad():
        y = x @ x.T + total
    return {"y": y, "shapes": [list(t.shape) for t in (x, y)], "one": (lambda z: z + 1)(2)}
"""


def prefault_job() -> None:
    """Pay, in the spare, copy-on-write faults the job's own start would take (like ``exercise``).

    Measured in a forked spare (30 jobs, load ~4.5): the job's compile of ``solution.py`` 0.8 ->
    0.5 ms of CPU. Nothing here is kept: the job starts with the same objects, only fewer of
    their pages still shared with the zygote.
    """
    compile(_SAMPLE_SOURCE, "<warm-up>", "exec", dont_inherit=True)


def set_job_environment() -> None:
    """The environment every job gets, exactly :data:`SAFE_ENV`, set once in the zygote before it
    forks (a spare clearing and refilling it cost ~0.4 ms of CPU). Bubblewrap started the zygote
    with :data:`SAFE_ENV` and the ``PYTHONPATH`` of the judge's own code, which the interpreter
    read at its start; anything an import added goes too."""
    os.environ.clear()
    os.environ.update(SAFE_ENV)


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


@functools.cache
def torch_seeder() -> Callable[[int], object]:
    """How :func:`reseed` seeds torch, decided once in the zygote (:func:`warm_up`).

    Where torch has no accelerator at all (none built in, none registered), its CPU generator is
    the only one: seeding it alone is what ``torch.manual_seed`` comes to, after steps that each
    find no device to seed (~0.25 ms of CPU and ~70 copy-on-write faults in every spare, measured
    in forks of a warm zygote). Otherwise ``torch.manual_seed`` seeds every device.
    """
    import torch

    if torch.accelerator.current_accelerator() is None:
        return torch.default_generator.manual_seed
    return torch.manual_seed


MT_WORDS = 624  # the Mersenne Twister's state: 624 32-bit words, then the position in them


@functools.cache
def numpy_reseeder() -> Callable[[], object] | None:
    """How :func:`reseed` gives numpy's global generator (``numpy.random.rand`` and the other
    functions of ``numpy.random``) fresh state; decided once in the zygote (:func:`warm_up`).
    None without numpy.

    ``numpy.random.seed`` costs a fresh spare ~0.15 ms of CPU and ~70 copy-on-write faults
    (its Python and Cython layers and the objects they touch; forks of a warm zygote), which is
    most of what reseeding costs. The generator is a Mersenne Twister whose state numpy exposes
    through its ctypes interface (``state_address``): a child writes 2,496 bytes of fresh
    entropy into its key and sets the position to the end, so its first draw makes the next
    block from that key, as numpy's own seeding from entropy does: a spare's whole reseed took
    ~0.15 ms instead of ~0.22 (docs/benchmarks.md, the seventeenth pass). The layout is
    checked here against numpy's own view of the state (and any cached Gaussian dropped);
    where it does not match, children call ``numpy.random.seed`` as before.
    """
    try:
        import numpy.random
    except ImportError:
        return None
    legacy = numpy.random.mtrand._rand
    generator = legacy._bit_generator
    try:
        legacy_state = legacy.get_state(legacy=True)
        if isinstance(legacy_state, tuple):
            legacy.set_state((*legacy_state[:3], 0, 0.0))  # no cached Gaussian for the children
        address = generator.ctypes.state_address
        key = (ctypes.c_uint32 * MT_WORDS).from_address(address)
        position = ctypes.c_int.from_address(address + ctypes.sizeof(key))
        state = generator.state["state"]
        matches = (
            type(generator).__name__ == "MT19937"
            and list(key) == [int(word) for word in state["key"]]
            and position.value == int(state["pos"])
        )
    except Exception:  # another generator or numpy without this interface
        matches = False
    if not matches:
        return lambda: numpy.random.seed(int.from_bytes(os.urandom(4), "little"))
    # The key and the position as one run of bytes, written with a plain copy (no foreign call).
    state_size = ctypes.sizeof(key) + ctypes.sizeof(position)
    state_bytes = memoryview((ctypes.c_ubyte * state_size).from_address(address)).cast("B")
    at_end = MT_WORDS.to_bytes(ctypes.sizeof(position), sys.byteorder)
    entropy = ctypes.sizeof(key)

    def fresh(generator: object = generator) -> None:  # the generator kept alive with its state
        state_bytes[:] = os.urandom(entropy) + at_end

    return fresh


def reseed() -> None:
    """Fresh random state for every child: none is inherited from the zygote."""
    seed = int.from_bytes(os.urandom(8), "little") & ((1 << 63) - 1)
    random.seed(seed)
    torch_seeder()(seed)
    numpy_fresh = numpy_reseeder()
    if numpy_fresh is not None:
        numpy_fresh()


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


def serve(control: socket.socket) -> None:
    filters = syscalls.compile_seccomp_filters()
    # Empty for every process this one forks: the bounding set limits only what an execve can
    # grant, so the capabilities the spares use to build each job's cell are untouched.
    syscalls.drop_capability_bounding_set()
    info = warm_up()
    set_job_environment()
    from runner.testing import guard, sealed

    # Every job's guard, sealed once here around a key slot; each spare keys its own copy.
    slotted = guard.KeySlotGuard(KEY_BYTES, RESULTS_FD) if sealed.supported() else None
    skip_handler_lock_reinit()
    threading_after_fork = ThreadingAfterFork()
    threading_after_fork.skip()  # the spares restore it (prepare_spare)
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
    prepare_spare(
        json.loads(data), socket.socket(fileno=link_fd), filters.spare, stdio, slotted, threading_after_fork
    )


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
    try:
        from runner.sandbox import _forkserver  # type: ignore[attr-defined]
    except ImportError:
        return serve_forks
    loop: ForkLoop = _forkserver.serve_forks
    return loop


def split_message(data: bytes) -> tuple[str, bytes] | None:
    """``b"<id>\n<json>"`` -> (id, json), or None where the id is missing or not plain ASCII
    letters, digits, ``-`` and ``_`` (at most 64): the exit notice quotes it as it is."""
    head, newline, body = data.partition(b"\n")
    if not newline or not 0 < len(head) <= 64 or not head.replace(b"-", b"").replace(b"_", b"").isalnum():
        return None  # bytes.isalnum: ASCII letters and digits only
    return head.decode("ascii"), body


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
