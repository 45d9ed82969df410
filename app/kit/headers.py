"""The security headers every response carries, set by a pure ASGI middleware.

Pure ASGI rather than ``@app.middleware("http")`` (Starlette's ``BaseHTTPMiddleware``): that one
runs the rest of the app in a task and streams the body through memory channels, which cost about
half a millisecond of CPU per request; this one only looks at the response's first message.
"""

from __future__ import annotations

import re
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send

CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; "
    "font-src 'self'; connect-src 'self'; frame-ancestors 'none'; base-uri 'self'; form-action 'self'"
)
SECURITY_HEADERS: tuple[tuple[bytes, bytes], ...] = (
    (b"content-security-policy", CSP.encode("latin-1")),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"same-origin"),
    (b"x-frame-options", b"DENY"),
)


# Who may frame a response: a list of origins under this key in ``request.state`` (this response)
# or in the session (every page of a session that began framed, e.g. an LMS launch). Absent, no one.
FRAME_ANCESTORS = "frame_ancestors"
_ORIGIN = re.compile(r"^https?://[A-Za-z0-9.-]+(:[0-9]{1,5})?$")


def framing_origins(scope: Scope) -> list[str]:
    """The valid origins allowed to frame this response (the request's own, else its session's)."""
    state: Any = scope.get("state") or {}
    wanted = state.get(FRAME_ANCESTORS) if isinstance(state, dict) else None
    if wanted is None:
        session = scope.get("session")
        wanted = session.get(FRAME_ANCESTORS) if isinstance(session, dict) else None
    if not isinstance(wanted, list):
        return []
    return [o for o in wanted if isinstance(o, str) and _ORIGIN.match(o)]


def _framed(headers: list[tuple[bytes, bytes]], origins: list[str]) -> list[tuple[bytes, bytes]]:
    """Frame-ancestors names ``origins`` (never ``*``), X-Frame-Options goes, and cookies the
    response sets travel inside the frame: ``SameSite=None`` for those marked ``Secure`` (browsers
    drop a ``SameSite=None`` cookie that is not; plain-http development keeps ``Lax``)."""
    ancestors = "frame-ancestors " + " ".join(origins)
    out: list[tuple[bytes, bytes]] = []
    for name, value in headers:
        if name.lower() == b"content-security-policy":
            value = value.replace(b"frame-ancestors 'none'", ancestors.encode("latin-1"))
        elif name.lower() == b"x-frame-options":
            continue
        elif name.lower() == b"set-cookie" and b"; secure" in value.lower():
            value = re.sub(rb"(?i)samesite=(lax|strict)", b"samesite=none", value)
        out.append((name, value))
    return out


class SecurityHeadersMiddleware:
    """Adds each of :data:`SECURITY_HEADERS` that the response did not set itself (``setdefault``);
    a response that may be framed (:func:`framing_origins`) names its framers instead of none."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", ()))
                present = {name.lower() for name, _ in headers}
                headers.extend(h for h in SECURITY_HEADERS if h[0] not in present)
                origins = framing_origins(scope)
                if origins:
                    headers = _framed(headers, origins)
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, send_with_headers)
