"""Hand-written HTTP/1.1 requests over a socket, for what an HTTP client will not send: forged,
doubled or missing Host headers, absolute-form targets, raw bytes."""

from __future__ import annotations

import json
import socket
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit


@dataclass
class RawResponse:
    status: int
    headers: dict[str, str]
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body)


def raw_request(
    base: str,
    head: str,
    body: bytes = b"",
    source: str | None = None,
    timeout: float = 30.0,
) -> RawResponse:
    """Send ``head`` (request line and headers, "\\r\\n"-separated, without the blank line) and
    ``body`` to the server at ``base``, from the local address ``source`` if given; read the answer
    (the connection is closed after it: ``Connection: close`` is added)."""
    parts = urlsplit(base)
    with socket.create_connection(
        (parts.hostname, parts.port), timeout=timeout, source_address=(source, 0) if source else None
    ) as sock:
        sock.sendall(head.encode("latin-1") + b"\r\nConnection: close\r\n\r\n" + body)
        chunks = []
        while chunk := sock.recv(65536):
            chunks.append(chunk)
    data = b"".join(chunks)
    header_bytes, _, content = data.partition(b"\r\n\r\n")
    lines = header_bytes.decode("latin-1").split("\r\n")
    status = int(lines[0].split()[1])
    headers = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    return RawResponse(status, headers, content)
