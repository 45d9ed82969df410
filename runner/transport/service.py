"""The runner as its own service process: one JSON job in, one JSON result out, per connection.

``python -m runner serve --socket /run/torchdrill/runner.sock`` keeps a warm sandbox and
judges jobs sent by :class:`RunnerClient`. It holds no database credentials: a job carries
everything needed (code, tests, expectations) and the result goes back to the caller.
"""

from __future__ import annotations

import json
import os
import socket
import socketserver
import struct
from pathlib import Path
from typing import Any

from runner.engine import Runner
from runner.jobs import Job, JudgeResult

MAX_MESSAGE = 64 * 1024 * 1024


def _send(sock: socket.socket, data: dict[str, Any]) -> None:
    body = json.dumps(data).encode()
    sock.sendall(struct.pack(">I", len(body)) + body)


def _recv(sock: socket.socket) -> dict[str, Any]:
    header = _recv_exact(sock, 4)
    (size,) = struct.unpack(">I", header)
    if size > MAX_MESSAGE:
        raise ValueError("message too large")
    return json.loads(_recv_exact(sock, size))


def _recv_exact(sock: socket.socket, n: int) -> bytes:
    chunks = bytearray()
    while len(chunks) < n:
        chunk = sock.recv(n - len(chunks))
        if not chunk:
            raise ConnectionError("connection closed")
        chunks += chunk
    return bytes(chunks)


class _Handler(socketserver.BaseRequestHandler):
    server: RunnerServer

    def handle(self) -> None:
        try:
            request = _recv(self.request)
        except (ValueError, ConnectionError) as exc:
            _send(self.request, {"error": str(exc)})
            return
        if request.get("op") == "info":
            _send(
                self.request,
                {"runtime": self.server.runner.runtime_info(), "stats": self.server.runner.stats()},
            )
            return
        try:
            job = Job.from_dict(request["job"])
        except (KeyError, TypeError, ValueError) as exc:
            _send(self.request, {"error": f"malformed job: {exc}"})
            return
        _send(self.request, {"result": self.server.runner.judge(job).to_dict()})


class RunnerServer(socketserver.ThreadingUnixStreamServer):
    """The runner's unix-socket server: one thread per connection, each judging with ``runner``
    (``serve`` runs one for good; a test or an embedding process runs its own)."""

    daemon_threads = True

    def __init__(self, path: str, runner: Runner) -> None:
        self.runner = runner
        super().__init__(path, _Handler)


def serve(socket_path: str, runner: Runner | None = None) -> None:
    path = Path(socket_path)
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.exists() or path.is_symlink():
        path.unlink()
    server = RunnerServer(str(path), runner or Runner())
    os.chmod(path, 0o660)
    print(f"runner listening on {path}", flush=True)
    server.serve_forever()


class RunnerClient:
    """Judges through a runner service instead of in-process."""

    def __init__(self, socket_path: str, timeout_s: float = 120.0) -> None:
        self.socket_path = socket_path
        self.timeout_s = timeout_s

    def _call(self, request: dict[str, Any]) -> dict[str, Any]:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
            sock.settimeout(self.timeout_s)
            sock.connect(self.socket_path)
            _send(sock, request)
            reply = _recv(sock)
        if "error" in reply:
            raise RuntimeError(reply["error"])
        return reply

    def judge(self, job: Job) -> JudgeResult:
        return JudgeResult.from_dict(self._call({"op": "judge", "job": job.to_dict()})["result"])

    def runtime_info(self) -> dict[str, str]:
        return self._call({"op": "info"})["runtime"]
