"""Request bodies are capped while being read: a real web process on 127.0.0.1, raw sockets.

A 200 MB chunked body (no ``Content-Length`` to refuse it by) must get 413 after about the limit
has arrived, the server must close rather than read the rest, and a flood of such bodies must not
grow the web's memory by more than a few limits.
"""

from __future__ import annotations

import contextlib
import select
import socket
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.scale.stack import RedisServer, Stack

pytestmark = [pytest.mark.celery, pytest.mark.postgres, pytest.mark.slow]

LIMIT = 256 * 1024
HUGE = 200 * 1024 * 1024
CHUNK = 64 * 1024


@dataclass
class Outcome:
    status: int | None  # None: no answer could be read
    sent: int  # body bytes the server let us send before it stopped listening


def rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise AssertionError("no VmRSS")


def _status(sock: socket.socket) -> int | None:
    with contextlib.suppress(OSError):
        head = sock.recv(4096)
        if head.startswith(b"HTTP/1.1 "):
            return int(head.split()[1])
    return None


def send_chunked(port: int, path: str, total: int = HUGE, headers: str = "") -> Outcome:
    """POST ``total`` bytes as a chunked body, stopping as soon as the server answers or closes."""
    sock = socket.create_connection(("127.0.0.1", port), timeout=30)
    sock.sendall(
        f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n"
        f"Transfer-Encoding: chunked\r\n{headers}\r\n".encode()
    )
    chunk = f"{CHUNK:x}\r\n".encode() + b"x" * CHUNK + b"\r\n"
    sent = 0
    try:
        while sent < total:
            readable, _, _ = select.select([sock], [], [], 0)
            if readable:  # an answer (or the close) came before the body's end
                return Outcome(_status(sock), sent)
            try:
                sock.sendall(chunk)
            except OSError:  # the server closed: it does not read the rest
                return Outcome(_status(sock), sent)
            sent += CHUNK
        sock.sendall(b"0\r\n\r\n")
        return Outcome(_status(sock), sent)
    finally:
        sock.close()


@pytest.fixture(scope="module")
def web(
    redis_server: RedisServer, scale_db: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[int, int]]:
    """One web process for the module (the requests below change nothing in it)."""
    stack = Stack(redis_server, scale_db, tmp_path_factory.mktemp("body-limit"))
    try:
        proc, base = stack.start_web(TORCHDRILL_MAX_BODY_BYTES=str(LIMIT))
        yield proc.pid, int(base.rsplit(":", 1)[1])
    finally:
        stack.close()


@pytest.mark.parametrize(
    "path",
    [
        "/api/v1/submissions",  # JSON, behind a bearer token
        "/api/problems/add-tensors/submissions",  # JSON, behind the session and CSRF
        "/login",  # a form
    ],
)
def test_a_200_mb_chunked_body_is_refused_without_being_read(web: tuple[int, int], path: str) -> None:
    pid, port = web
    before = rss_kib(pid)
    outcome = send_chunked(port, path)
    # The server stopped taking the body after about the limit (what sits in the two kernels'
    # socket buffers aside), far from the 200 MB offered.
    assert outcome.sent < 16 * 1024 * 1024, outcome
    assert outcome.status in (413, None) or outcome.status in (401, 403), outcome
    assert rss_kib(pid) - before < 32 * 1024


def _read_answer(sock: socket.socket) -> bytes:
    """The whole answer: the head, then as much body as it declares (a segment at a time: one recv
    may hold only the head), or what came before the server closed."""
    answer = b""
    while True:
        head, sep, body = answer.partition(b"\r\n\r\n")
        if sep:
            length = next(
                (
                    int(line.split(b":", 1)[1])
                    for line in head.split(b"\r\n")
                    if line.lower().startswith(b"content-length:")
                ),
                0,
            )
            if len(body) >= length:
                return answer
        try:
            data = sock.recv(65536)
        except (ConnectionResetError, TimeoutError):
            return answer
        if not data:
            return answer
        answer += data


def test_the_413_is_sent_once_the_limit_has_arrived(web: tuple[int, int]) -> None:
    """Just over the limit, then silence: the answer is 413 (the body was cut, not parsed)."""
    _pid, port = web
    sock = socket.create_connection(("127.0.0.1", port), timeout=30)
    try:
        sock.sendall(
            f"POST /login HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
            "Content-Type: application/x-www-form-urlencoded\r\nTransfer-Encoding: chunked\r\n\r\n".encode()
        )
        body = b"email=" + b"a" * (LIMIT + CHUNK)
        sock.sendall(f"{len(body):x}\r\n".encode() + body + b"\r\n")
        answer = _read_answer(sock)
    finally:
        sock.close()
    assert answer.startswith(b"HTTP/1.1 413"), answer[:200]
    assert b"connection: close" in answer.lower()
    assert b"payload_too_large" in answer


def test_a_declared_length_above_the_limit_is_refused_before_reading(web: tuple[int, int]) -> None:
    _pid, port = web
    sock = socket.create_connection(("127.0.0.1", port), timeout=30)
    try:
        sock.sendall(
            f"POST /api/v1/submissions HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
            f"Content-Type: application/json\r\nContent-Length: {HUGE}\r\n\r\n".encode()
        )
        answer = sock.recv(65536)  # nothing of the body was sent
    finally:
        sock.close()
    assert answer.startswith(b"HTTP/1.1 413"), answer[:200]


def test_a_flood_of_large_bodies_leaves_the_web_memory_bounded(web: tuple[int, int]) -> None:
    pid, port = web
    before = rss_kib(pid)
    peak = [before]
    outcomes: list[Outcome] = []
    stop = threading.Event()

    def watch() -> None:
        while not stop.wait(0.05):
            with contextlib.suppress(OSError):
                peak.append(rss_kib(pid))

    def flood() -> None:
        for _ in range(3):
            outcomes.append(send_chunked(port, "/api/v1/submissions", total=64 * 1024 * 1024))

    watcher = threading.Thread(target=watch)
    watcher.start()
    senders = [threading.Thread(target=flood) for _ in range(8)]
    for sender in senders:
        sender.start()
    for sender in senders:
        sender.join(timeout=120)
    stop.set()
    watcher.join()
    assert len(outcomes) == 24
    assert all(o.sent < 16 * 1024 * 1024 for o in outcomes), outcomes
    # 8 bodies at once, each cut at 256 KiB: the web grows by a few MB, not by what was offered.
    assert max(peak) - before < 64 * 1024, (before, max(peak))
