"""The zygote's fork loop (runner.sandbox.forkloop.fork_loop): the compiled one and the Python one it falls
back on speak the same protocol. Each test runs a loop in a forked "zygote" process, as the
sandbox does, and talks to it over a SOCK_SEQPACKET pair like the host."""

from __future__ import annotations

import contextlib
import json
import os
import select
import socket
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from runner.sandbox import control, forkloop

Loop = Callable[[int], "tuple[bytes, int] | None"]


def _compiled() -> Loop:
    loop = forkloop.compiled_loop()
    assert loop is not None, "make setup builds runner/sandbox/_forkserver.c"
    return loop


LOOPS = {"compiled": _compiled, "python": lambda: forkloop.serve_forks}


def test_setup_built_the_compiled_loop_and_the_zygote_uses_it() -> None:
    assert forkloop.fork_loop() is _compiled()


@contextlib.contextmanager
def running(loop: Loop) -> Iterator[tuple[socket.socket, int]]:
    """A zygote-like process running ``loop``: each child it forks writes the JSON it got to its
    link, then kills itself with its ``signal`` or exits with its ``exit``. Yields (the host's
    end, the zygote's pid)."""
    host, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the zygote-like process
        code = 0
        try:
            host.close()
            got = loop(theirs.fileno())
            if got is not None:  # a child of the loop
                theirs.detach()
                body, link_fd = got
                with socket.socket(fileno=link_fd) as link:
                    link.send(body)
                asked = json.loads(body)
                if "signal" in asked:
                    os.kill(os.getpid(), asked["signal"])
                os._exit(int(asked["exit"]))
        except BaseException:
            code = 70
        os._exit(code)
    theirs.close()
    try:
        yield host, pid
    finally:
        host.close()
        _, status = os.waitpid(pid, 0)
        ended = os.waitstatus_to_exitcode(status)
        assert ended == 0, "the loop did not end cleanly when the host went away"


def receive(host: socket.socket, timeout: float = 10.0) -> dict[str, Any]:
    assert select.select([host], [], [], timeout)[0], "no message from the zygote"
    return dict(json.loads(host.recv(65536)))


def ask(host: socket.socket, job_id: bytes, body: dict[str, Any]) -> socket.socket:
    link, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    link.settimeout(10.0)
    socket.send_fds(host, [job_id + b"\n" + json.dumps(body).encode()], [theirs.fileno()])
    theirs.close()
    return link


@pytest.mark.parametrize("which", sorted(LOOPS))
def test_each_child_gets_its_message_and_link_and_its_exit_is_reported(which: str) -> None:
    with running(LOOPS[which]()) as (host, _):
        links = {f"job-{n}": ask(host, f"job-{n}".encode(), {"exit": n, "n": n}) for n in range(3)}
        for job_id, link in links.items():
            assert select.select([link], [], [], 10.0)[0]
            assert json.loads(link.recv(65536)) == {"exit": int(job_id[-1]), "n": int(job_id[-1])}
            link.close()
        exits = {}
        for _ in range(3):
            msg = receive(host)
            assert msg["op"] == "exit"
            exits[msg["id"]] = msg["status"]
        assert exits == {"job-0": 0, "job-1": 1, "job-2": 2}


@pytest.mark.parametrize("which", sorted(LOOPS))
def test_a_child_killed_by_a_signal_is_reported_as_minus_the_signal(which: str) -> None:
    with running(LOOPS[which]()) as (host, _):
        link = ask(host, b"doomed", {"signal": 9, "exit": 0})
        link.recv(65536)
        assert receive(host) == {"op": "exit", "id": "doomed", "status": -9}
        link.close()


@pytest.mark.parametrize("which", sorted(LOOPS))
@pytest.mark.parametrize(
    ("message", "fds", "refused_id"),
    [
        (b'{"exit": 0}', 1, None),  # no id line
        (b'bad"id\n{"exit": 0}', 1, None),  # an id the exit notice could not quote as it is
        (b"x" * 65 + b'\n{"exit": 0}', 1, None),  # too long
        (b'fine\n{"exit": 0}', 0, "fine"),  # no link
        (b'fine\n{"exit": 0}', 2, "fine"),  # two descriptors
    ],
)
def test_a_message_it_cannot_serve_is_refused_and_the_loop_goes_on(
    which: str, message: bytes, fds: int, refused_id: str | None
) -> None:
    with running(LOOPS[which]()) as (host, _):
        pairs = [socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET) for _ in range(fds)]
        socket.send_fds(host, [message], [theirs.fileno() for _, theirs in pairs])
        for _, theirs in pairs:
            theirs.close()
        assert receive(host) == {"op": "refused", "id": refused_id}
        for ours, _ in pairs:  # no child got any of them: their other ends are closed
            ours.settimeout(10.0)
            assert ours.recv(16) == b""
            ours.close()
        link = ask(host, b"after", {"exit": 3})
        assert json.loads(link.recv(65536)) == {"exit": 3}
        assert receive(host) == {"op": "exit", "id": "after", "status": 3}
        link.close()


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        (b'3f2a-_Z\n{"a": 1}', ("3f2a-_Z", b'{"a": 1}')),
        (b"id\n", ("id", b"")),
        (b"\n{}", None),
        (b"no newline", None),
        (b"caf\xc3\xa9\n{}", None),
        (b"a b\n{}", None),
    ],
)
def test_split_message(data: bytes, expected: tuple[str, bytes] | None) -> None:
    assert control.split_message(data) == expected
