"""The request body limit, enforced on the stream: bytes are counted as they arrive.

A declared ``Content-Length`` above the limit is refused before anything is read; a chunked (or
lying) body is cut as soon as the count passes the limit, whatever route reads it (JSON, forms,
uploads): the route's read fails with 413 (``payload_too_large``). Either way, and whenever a
route answers before the body's end (a 401 before reading it), the answer says
``Connection: close``: the server closes instead of reading the rest to reuse the connection. A
request then holds at most the limit in memory (uvicorn pauses reading beyond 64 KiB buffered),
however large the body sent.
"""

from __future__ import annotations

import json

from starlette.exceptions import HTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send


def _chunked(scope: Scope) -> bool:
    return b"chunked" in dict(scope["headers"]).get(b"transfer-encoding", b"").lower()


class BodyTooLarge(HTTPException):
    def __init__(self, limit: int) -> None:
        super().__init__(413, f"The request body is larger than {limit} bytes.")


class BodyLimitMiddleware:
    def __init__(self, app: ASGIApp, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = dict(scope["headers"]).get(b"content-length", b"")
        if declared.isdigit() and int(declared) > self.max_bytes:
            await self._refuse(send)
            return
        received = 0
        cut = False
        started = False
        ended = declared == b"0" or (not declared and not _chunked(scope))

        async def counted() -> Message:
            nonlocal received, cut, ended
            message = await receive()
            if message["type"] == "http.request":
                ended = ended or not message.get("more_body", False)
                received += len(message.get("body", b""))
                if received > self.max_bytes:
                    cut = True
                    raise BodyTooLarge(self.max_bytes)
            return message

        async def closing(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
                if cut or not ended:  # the rest of the body is not read: no reuse of this connection
                    message = {**message, "headers": [*message.get("headers", []), (b"connection", b"close")]}
            await send(message)

        try:
            await self.app(scope, counted, closing)
        except BodyTooLarge:
            if started:
                raise
            await self._refuse(send)

    async def _refuse(self, send: Send) -> None:
        body = json.dumps(
            {
                "error": "payload_too_large",
                "detail": f"The request body is larger than {self.max_bytes} bytes.",
            }
        ).encode()
        await send(
            {
                "type": "http.response.start",
                "status": 413,
                "headers": [
                    (b"content-type", b"application/json"),
                    (b"content-length", str(len(body)).encode()),
                    (b"connection", b"close"),
                ],
            }
        )
        await send({"type": "http.response.body", "body": body})
