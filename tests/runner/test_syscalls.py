"""The sandbox's seccomp filter as the spares load it: compiled once (runner.syscalls)."""

from __future__ import annotations

import ctypes
import errno
import os
import socket

import pytest

from runner import forked, syscalls


def test_the_program_is_libseccomp_s_own_export() -> None:
    program = syscalls.compile_seccomp_filter().program
    read_end, write_end = os.pipe()
    with os.fdopen(write_end, "wb") as fh:
        syscalls.build_seccomp_filter().export_bpf(fh)
    with os.fdopen(read_end, "rb") as fh:
        assert program == fh.read()
    assert len(program) % syscalls.BPF_INSTRUCTION == 0


@pytest.mark.parametrize("program", [b"", b"\x00" * 7, b"\x00" * 8 * 0x10000])
def test_what_is_not_a_program_is_refused(program: bytes) -> None:
    with pytest.raises(ValueError, match="not a classic BPF program"):
        syscalls.SeccompProgram(program)


def test_loaded_it_refuses_what_it_lists_and_allows_the_rest() -> None:
    seccomp = syscalls.compile_seccomp_filter()
    libc = ctypes.CDLL(None, use_errno=True)

    def attempt(call: object) -> int:
        try:
            call()  # type: ignore[operator]
        except OSError as exc:
            return exc.errno or 0
        return 0

    def child(_records: int) -> dict[str, int]:
        seccomp.load()

        def unshare() -> None:
            if libc.unshare(syscalls.CLONE_NEWNS) != 0:
                raise OSError(ctypes.get_errno(), "unshare")

        return {
            "unshare": attempt(unshare),
            "inet": attempt(lambda: socket.socket(socket.AF_INET, socket.SOCK_STREAM)),
            "unix": attempt(lambda: socket.socketpair()[0].close()),
            "pipe": attempt(lambda: [os.close(fd) for fd in os.pipe()]),
            "no_new_privs": int(open("/proc/self/status").read().split("NoNewPrivs:")[1].split()[0]),
        }

    outcome, _ = forked.in_fork(child)
    assert outcome == {
        "unshare": errno.EPERM,
        "inet": errno.EACCES,
        "unix": 0,
        "pipe": 0,
        "no_new_privs": 1,
    }


def _name_in_a_fork(block_proc: bool) -> str:
    def child(_records: int) -> str:
        if block_proc:  # as where /proc is missing: the prctl path

            def refuse(*_args: object) -> None:
                raise OSError("no /proc")

            syscalls.write_control = refuse  # type: ignore[assignment]
        syscalls.set_process_name("td-name-check-long")
        with open(f"/proc/{os.getpid()}/comm") as fh:
            return fh.read().strip()

    name: str = forked.in_fork(child)[0]
    return name


def test_the_process_name_is_set_through_proc_and_without_it_through_prctl() -> None:
    assert _name_in_a_fork(block_proc=False) == "td-name-check-l"  # 15 bytes, as the kernel keeps
    assert _name_in_a_fork(block_proc=True) == "td-name-check-l"
