"""A small reverse proxy on 127.0.0.1 for tests: what nginx does with
``proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for`` and ``X-Forwarded-Proto $scheme``.

Each client connection carries one request (``Connection: close`` both ways); the proxy appends the
client's address to X-Forwarded-For (after whatever the client sent), sets X-Forwarded-Proto, keeps
the Host, and relays the answer.
"""

from __future__ import annotations

import socket
import threading
from types import TracebackType


class ForwardingProxy:
    def __init__(self, upstream_port: int) -> None:
        self.upstream_port = upstream_port
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = int(self.listener.getsockname()[1])
        self.url = f"http://127.0.0.1:{self.port}"
        self.thread = threading.Thread(target=self._serve, daemon=True)

    def __enter__(self) -> ForwardingProxy:
        self.thread.start()
        return self

    def __exit__(self, *exc: type[BaseException] | BaseException | TracebackType | None) -> None:
        self.listener.close()

    def _serve(self) -> None:
        while True:
            try:
                conn, (address, _port) = self.listener.accept()
            except OSError:
                return
            threading.Thread(target=self._relay, args=(conn, address), daemon=True).start()

    def _relay(self, conn: socket.socket, client: str) -> None:
        with conn:
            data = b""
            while b"\r\n\r\n" not in data:
                chunk = conn.recv(65536)
                if not chunk:
                    return
                data += chunk
            head, _, body = data.partition(b"\r\n\r\n")
            lines = head.decode("latin-1").split("\r\n")
            kept, forwarded, length = [lines[0]], [], 0
            for line in lines[1:]:
                name, _, value = line.partition(":")
                key = name.strip().lower()
                if key == "x-forwarded-for":
                    forwarded.append(value.strip())
                elif key == "content-length":
                    length = int(value)
                    kept.append(line)
                elif key not in ("connection", "x-forwarded-proto", "keep-alive"):
                    kept.append(line)
            while len(body) < length:
                body += conn.recv(65536)
            kept += [
                "X-Forwarded-For: " + ", ".join([*forwarded, client]),
                "X-Forwarded-Proto: http",
                "Connection: close",
            ]
            with socket.create_connection(("127.0.0.1", self.upstream_port), timeout=60) as upstream:
                upstream.sendall("\r\n".join(kept).encode("latin-1") + b"\r\n\r\n" + body)
                while chunk := upstream.recv(65536):
                    conn.sendall(chunk)
