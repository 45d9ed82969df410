"""The sandbox's seccomp filter, the zygote's part and the spare's (runner.sandbox.syscalls)."""

from __future__ import annotations

import ctypes
import errno
import os
import socket

import pytest

from runner.sandbox import syscalls
from tests.runner.processes import in_fork


@pytest.mark.parametrize("part", ["zygote", "spare"])
def test_each_part_is_libseccomp_s_own_export(part: syscalls.FilterPart) -> None:
    program = syscalls.compile_seccomp_filter(part).program
    read_end, write_end = os.pipe()
    with os.fdopen(write_end, "wb") as fh:
        syscalls.build_seccomp_filter(part).export_bpf(fh)
    with os.fdopen(read_end, "rb") as fh:
        assert program == fh.read()
    assert len(program) % syscalls.BPF_INSTRUCTION == 0


def test_there_is_no_other_part() -> None:
    with pytest.raises(ValueError, match="no such part"):
        syscalls.build_seccomp_filter("whole")  # type: ignore[arg-type]


@pytest.mark.parametrize("program", [b"", b"\x00" * 7, b"\x00" * 8 * 0x10000])
def test_what_is_not_a_program_is_refused(program: bytes) -> None:
    with pytest.raises(ValueError, match="not a classic BPF program"):
        syscalls.SeccompProgram(program)


def _attempts(parts: tuple[str, ...]) -> dict[str, int]:
    """In a fork that loaded ``parts`` of the filter (in that order): what each call gave."""
    filters = syscalls.compile_seccomp_filters()
    libc = ctypes.CDLL(None, use_errno=True)

    def attempt(call: object) -> int:
        try:
            call()  # type: ignore[operator]
        except OSError as exc:
            return exc.errno or 0
        return 0

    def calling(name: str, *args: object) -> object:
        def call() -> None:
            if getattr(libc, name)(*args) != 0:
                raise OSError(ctypes.get_errno(), name)

        return call

    def child(_records: int) -> dict[str, int]:
        for part in parts:
            getattr(filters, part).load()
        return {
            # the spare's set-up calls (harmless here: the child's own namespaces, then gone)
            "unshare": attempt(calling("unshare", syscalls.CLONE_NEWUTS)),
            "umount2": attempt(calling("umount2", b"/nonexistent-torchdrill", 0)),
            # the zygote's part
            "ptrace": attempt(calling("ptrace", 16, 1, None, None)),
            "inet": attempt(lambda: socket.socket(socket.AF_INET, socket.SOCK_STREAM)),
            "unix": attempt(lambda: socket.socketpair()[0].close()),
            "pipe": attempt(lambda: [os.close(fd) for fd in os.pipe()]),
            "no_new_privs": int(open("/proc/self/status").read().split("NoNewPrivs:")[1].split()[0]),
            "filters": int(open("/proc/self/status").read().split("Seccomp_filters:")[1].split()[0]),
        }

    outcome: dict[str, int] = in_fork(child)[0]
    return outcome


def test_the_zygote_s_part_lets_a_spare_s_set_up_through_and_refuses_the_rest() -> None:
    assert _attempts(("zygote",)) == {
        "unshare": 0,
        "umount2": errno.ENOENT,  # let through: the kernel's own answer
        "ptrace": errno.EPERM,
        "inet": errno.EACCES,
        "unix": 0,
        "pipe": 0,
        "no_new_privs": 1,
        "filters": 1,
    }


def test_both_parts_refuse_the_set_up_calls_too() -> None:
    assert _attempts(("zygote", "spare")) == {
        "unshare": errno.EPERM,
        "umount2": errno.EPERM,
        "ptrace": errno.EPERM,
        "inet": errno.EACCES,
        "unix": 0,
        "pipe": 0,
        "no_new_privs": 1,
        "filters": 2,
    }


def test_every_listed_call_is_in_exactly_one_part() -> None:
    import pyseccomp as sc

    for name in syscalls.DENIED_SYSCALLS:
        try:
            number = sc.resolve_syscall(sc.system_arch(), name)
        except (OSError, ValueError, RuntimeError):
            continue
        in_parts = [part for part in ("zygote", "spare") if _refuses(part, number)]
        assert in_parts == (["spare"] if name in syscalls.SPARE_SETUP_SYSCALLS else ["zygote"]), name


def _refuses(part: syscalls.FilterPart, number: int) -> bool:
    """Whether ``part``'s program has a rule for syscall ``number`` (its instructions compare
    the syscall number with it: ``BPF_JMP|BPF_JEQ|BPF_K``, k = the number)."""
    import struct

    program = syscalls.compile_seccomp_filter(part).program
    for offset in range(0, len(program), syscalls.BPF_INSTRUCTION):
        code, _jt, _jf, k = struct.unpack("<HBBI", program[offset : offset + syscalls.BPF_INSTRUCTION])
        if code == 0x15 and k == number:
            return True
    return False


def _name_in_a_fork(block_proc: bool) -> str:
    def child(_records: int) -> str:
        if block_proc:  # as where /proc is missing: the prctl path

            def refuse(*_args: object) -> None:
                raise OSError("no /proc")

            syscalls.write_control = refuse  # type: ignore[assignment]
        syscalls.set_process_name("td-name-check-long")
        with open(f"/proc/{os.getpid()}/comm") as fh:
            return fh.read().strip()

    name: str = in_fork(child)[0]
    return name


def test_the_process_name_is_set_through_proc_and_without_it_through_prctl() -> None:
    assert _name_in_a_fork(block_proc=False) == "td-name-check-l"  # 15 bytes, as the kernel keeps
    assert _name_in_a_fork(block_proc=True) == "td-name-check-l"
