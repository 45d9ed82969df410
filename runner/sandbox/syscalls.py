"""Thin ctypes wrappers for the few Linux calls the sandbox needs, and its seccomp filter."""

from __future__ import annotations

import ctypes
import ctypes.util
import errno
import os
from dataclasses import dataclass
from typing import Any, Literal

CLONE_NEWNS = 0x00020000
CLONE_NEWCGROUP = 0x02000000
CLONE_NEWUTS = 0x04000000
CLONE_NEWIPC = 0x08000000
CLONE_NEWUSER = 0x10000000
CLONE_NEWPID = 0x20000000
CLONE_NEWNET = 0x40000000
MS_NOSUID = 2
MS_NODEV = 4
MS_NOEXEC = 8
MS_REC = 16384
MS_PRIVATE = 1 << 18
MNT_DETACH = 2
PR_SET_PDEATHSIG = 1
PR_SET_DUMPABLE = 4
PR_SET_NAME = 15
PR_SET_SECCOMP = 22
SECCOMP_MODE_FILTER = 2
PR_CAPBSET_DROP = 24
PR_SET_NO_NEW_PRIVS = 38
CAP_LAST_CAP = 40

_libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
_libc.mount.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_ulong, ctypes.c_char_p]
_libc.umount2.argtypes = [ctypes.c_char_p, ctypes.c_int]
_libc.unshare.argtypes = [ctypes.c_int]
_libc.prctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong]


def _check(result: int, what: str) -> None:
    if result != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"{what}: {os.strerror(err)}")


def unshare(flags: int) -> None:
    _check(_libc.unshare(flags), "unshare")


def mount(source: str, target: str, fstype: str, flags: int = 0, data: str = "") -> None:
    _check(
        _libc.mount(
            source.encode(),
            target.encode(),
            fstype.encode() if fstype else None,
            flags,
            data.encode() or None,
        ),
        f"mount {target}",
    )


def write_control(path: str | os.PathLike[str], data: bytes) -> None:
    """Write a kernel control file (a cgroup's setting or process list, ``oom_score_adj``) in one
    ``write``, without a file object: these are written on every job (the host) and in every
    spare, where a file object cost ~0.05 ms of CPU and ~20 copy-on-write faults more each."""
    fd = os.open(path, os.O_WRONLY | os.O_CLOEXEC | os.O_NOFOLLOW)
    try:
        os.write(fd, data)
    finally:
        os.close(fd)


def read_control(path: str | os.PathLike[str]) -> str:
    """A kernel control file's text (a cgroup's process list or counters), read without a file
    object, as :func:`write_control` writes: about half the CPU of ``Path.read_text``, for files
    the host reads on every job."""
    fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    try:
        chunks = []
        while chunk := os.read(fd, 65536):
            chunks.append(chunk)
    finally:
        os.close(fd)
    return b"".join(chunks).decode()


def make_mounts_private() -> None:
    _check(_libc.mount(b"none", b"/", None, MS_REC | MS_PRIVATE, None), "make / private")


def umount_lazy(target: str) -> None:
    _check(_libc.umount2(target.encode(), MNT_DETACH), f"umount {target}")


def prctl(option: int, arg2: int = 0) -> None:
    _check(_libc.prctl(option, arg2, 0, 0, 0), f"prctl {option}")


def set_process_name(name: str) -> None:
    """This process's name as ``top``, ``ps -o comm`` and ``perf`` show it (15 bytes at most):
    the zygote and the spares are told apart from each other and from the web process, which
    all run ``python``.

    Written to ``/proc/thread-self/comm``, which is what ``prctl(PR_SET_NAME)`` sets: in a fresh
    spare the ``prctl`` through ctypes (a string buffer, its address, a foreign call) cost
    ~0.19 ms of CPU and ~75 copy-on-write faults, the write ~0.04 ms (forks of a warm zygote;
    docs/benchmarks.md, the seventeenth pass). Without ``/proc``, ``prctl`` as before."""
    encoded = name.encode("ascii")[:15]
    try:
        write_control("/proc/thread-self/comm", encoded)
    except OSError:
        buffer = ctypes.create_string_buffer(encoded)
        _check(_libc.prctl(PR_SET_NAME, ctypes.addressof(buffer), 0, 0, 0), "prctl PR_SET_NAME")


def drop_capability_bounding_set() -> None:
    for cap in range(CAP_LAST_CAP + 1):
        try:
            prctl(PR_CAPBSET_DROP, cap)
        except OSError as exc:  # caps unknown to this kernel
            if exc.errno != errno.EINVAL:
                raise


# System calls no learner code needs. Everything else is allowed: PyTorch uses a wide
# range of ordinary calls, and the namespaces, uid, cgroup and read-only mounts do the
# containing; the filter removes the kernel surface that could break out of them.
DENIED_SYSCALLS = (
    "mount",
    "umount2",
    "pivot_root",
    "chroot",
    "unshare",
    "setns",
    "ptrace",
    "process_vm_readv",
    "process_vm_writev",
    "kexec_load",
    "kexec_file_load",
    "init_module",
    "finit_module",
    "delete_module",
    "bpf",
    "perf_event_open",
    "keyctl",
    "add_key",
    "request_key",
    "userfaultfd",
    "reboot",
    "swapon",
    "swapoff",
    "syslog",
    "acct",
    "quotactl",
    "open_by_handle_at",
    "name_to_handle_at",
    "fanotify_init",
    "move_mount",
    "open_tree",
    "fsopen",
    "fsmount",
    "fsconfig",
    "fspick",
    "mount_setattr",
    "settimeofday",
    "clock_settime",
    "adjtimex",
    "clock_adjtime",
    "setdomainname",
    "sethostname",
    "iopl",
    "ioperm",
    "lookup_dcookie",
    "vhangup",
    "personality",
    "io_uring_setup",
    "io_uring_enter",
    "io_uring_register",
    "pidfd_getfd",
    "kcmp",
    "mknod",
    "mknodat",
)
AF_INET, AF_INET6, AF_NETLINK, AF_PACKET = 2, 10, 16, 17
NAMESPACE_FLAGS = (
    CLONE_NEWNS,
    CLONE_NEWCGROUP,
    CLONE_NEWUTS,
    CLONE_NEWIPC,
    CLONE_NEWUSER,
    CLONE_NEWPID,
    CLONE_NEWNET,
)


# The calls of the list above that a spare's own set-up makes (its namespaces, its mounts, the
# cgroup tree unmounted): the zygote's part of the filter lets them through; each spare's part
# refuses them, loaded once that set-up is done, before any job exists (SandboxFilters).
SPARE_SETUP_SYSCALLS = ("mount", "umount2", "unshare")
# The calls that start a thread or a process (``clone3`` is refused with ENOSYS by the zygote's
# part, so libc falls back to ``clone``): the job's part refuses them, loaded by the harness once
# it is ready and before the learner's module is imported, unless the problem allows threads.
# Every Python route to another thread or process (threading, concurrent.futures,
# multiprocessing, os.fork, subprocess, torch.multiprocessing, DataLoader workers, torch's own
# thread pools) ends in one of them, where no Python code can undo the refusal.
NEW_TASK_SYSCALLS = ("clone", "fork", "vfork")
FilterPart = Literal["zygote", "spare", "job"]


def build_seccomp_filter(part: FilterPart) -> Any:
    """A libseccomp filter (not yet loaded), a part of the sandbox's: the ``"zygote"``'s refuses
    the calls above but :data:`SPARE_SETUP_SYSCALLS` with EPERM, the namespace flags of ``clone``
    likewise, ``clone3`` with ENOSYS and sockets of the network's families with EACCES; the
    ``"spare"``'s refuses :data:`SPARE_SETUP_SYSCALLS` with EPERM. Both loaded, a process is
    refused every call above (:class:`SandboxFilters`). The ``"job"``'s refuses
    :data:`NEW_TASK_SYSCALLS` with EPERM: no new thread or process.

    The sandbox does not load a filter as it is: :func:`compile_seccomp_filters` makes the programs once.
    """
    import pyseccomp as sc

    if part not in ("zygote", "spare", "job"):
        raise ValueError(f"no such part of the filter: {part!r}")
    f = sc.SyscallFilter(defaction=sc.ALLOW)
    if part == "job":
        for name in NEW_TASK_SYSCALLS:
            try:
                f.add_rule(sc.ERRNO(errno.EPERM), name)
            except (OSError, ValueError, RuntimeError):
                continue  # unknown on this architecture (vfork, fork on arm64)
        return f
    for name in DENIED_SYSCALLS:
        if (name in SPARE_SETUP_SYSCALLS) != (part == "spare"):
            continue
        try:
            f.add_rule(sc.ERRNO(errno.EPERM), name)
        except (OSError, ValueError, RuntimeError):
            continue  # unknown on this architecture
    if part == "spare":
        return f
    for flag in NAMESPACE_FLAGS:
        f.add_rule(sc.ERRNO(errno.EPERM), "clone", sc.Arg(0, sc.MASKED_EQ, flag, flag))
    # clone3 passes flags in memory, which seccomp cannot inspect: make libc fall back to clone.
    f.add_rule(sc.ERRNO(errno.ENOSYS), "clone3")
    for family in (AF_INET, AF_INET6, AF_NETLINK, AF_PACKET):
        f.add_rule(sc.ERRNO(errno.EACCES), "socket", sc.Arg(0, sc.EQ, family))
    return f


class _SockFprog(ctypes.Structure):
    """``struct sock_fprog``: a classic BPF program's length (in instructions) and address."""

    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


BPF_INSTRUCTION = 8  # struct sock_filter: u16 code, u8 jt, u8 jf, u32 k


class SeccompProgram:
    """The sandbox's seccomp filter, compiled to classic BPF once, loaded by each spare as it is.

    libseccomp generates the program from its rules at every ``seccomp_load``: in a forked spare
    that was ~0.55 ms of CPU and ~210 copy-on-write faults (its allocator's pages and the
    bindings' objects), against ~0.23 ms and ~65 for loading the program it generated once
    (docs/benchmarks.md, the eighth pass). :meth:`load` does what ``seccomp_load`` does with the
    filter's default attributes: ``no_new_privs`` first, then the program, no flags.
    """

    def __init__(self, program: bytes) -> None:
        if not program or len(program) % BPF_INSTRUCTION or len(program) // BPF_INSTRUCTION > 0xFFFF:
            raise ValueError(f"not a classic BPF program: {len(program)} bytes")
        self.program = program
        # Built here, in the zygote: the spare only passes their address to the kernel.
        self._buffer = ctypes.create_string_buffer(program, len(program))
        self._fprog = _SockFprog(len(program) // BPF_INSTRUCTION, ctypes.addressof(self._buffer))

    def load(self) -> None:
        """Apply the filter to this process (and every process it starts). Cannot be undone."""
        prctl(PR_SET_NO_NEW_PRIVS, 1)
        _check(
            _libc.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.addressof(self._fprog), 0, 0),
            "load the seccomp filter",
        )


def compile_seccomp_filter(part: FilterPart) -> SeccompProgram:
    """:func:`build_seccomp_filter`'s program for ``part``, as libseccomp exports it for this architecture."""
    fd = os.memfd_create("seccomp-filter", os.MFD_CLOEXEC)
    with open(fd, "w+b") as fh:
        build_seccomp_filter(part).export_bpf(fh)
        fh.flush()
        fh.seek(0)
        return SeccompProgram(fh.read())


@dataclass(frozen=True)
class SandboxFilters:
    """The sandbox's seccomp filter in two parts that together refuse what the whole does.

    The kernel checks and compiles a filter each time a process loads it: the whole filter (98
    instructions) cost each spare ~0.15 ms of CPU to load, a filter of a few instructions ~0.06 ms
    (docs/benchmarks.md, the seventeenth pass). So the zygote loads the large part once, before
    it forks (every spare inherits it, as filters are, for good), and each spare loads only the
    part its own set-up could not have run under, once that set-up is done, before any job exists.
    """

    zygote: SeccompProgram  # all but SPARE_SETUP_SYSCALLS: loaded by the zygote before its first fork
    spare: SeccompProgram  # SPARE_SETUP_SYSCALLS: loaded by each spare after its mounts
    # NEW_TASK_SYSCALLS: loaded by the job's harness before the learner's import (no new threads
    # or processes), unless the problem allows them ([limits] threads = true)
    job: SeccompProgram


def compile_seccomp_filters() -> SandboxFilters:
    return SandboxFilters(
        zygote=compile_seccomp_filter("zygote"),
        spare=compile_seccomp_filter("spare"),
        job=compile_seccomp_filter("job"),
    )
