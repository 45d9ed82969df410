"""Which ``Host`` the app answers for, and which peers may speak for the client (trusted proxies).

:class:`AllowedHostsMiddleware` answers 400 to a request whose ``Host`` header is not one of the
site's names (``TORCHDRILL_PUBLIC_URL``'s host, ``TORCHDRILL_ALLOWED_HOSTS``, and in development
localhost, 127.0.0.1 and [::1]). Links never come from the request anyway (``app.kit.links``); the
check keeps forged hosts out of everything else (caches, logs, DNS rebinding of a local server).
Names compare case-insensitively, without one trailing dot; the port is not compared (the site's
links carry the configured one), but it must be a number. ``/healthz`` is exempt: orchestrators
probe it by address.

A client's address is the TCP peer's unless that peer is one of ``TORCHDRILL_FORWARDED_ALLOW_IPS``;
then it is what that proxy put in ``X-Forwarded-For`` (uvicorn's proxy-headers support, wired in
``app.__main__``). ``X-Forwarded-Host`` and ``Forwarded`` are never read.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Callable
from functools import lru_cache
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from starlette.types import ASGIApp, Receive, Scope, Send

from app.kit.links import public_url

if TYPE_CHECKING:
    from app.kit.settings import Settings

DEVELOPMENT_HOSTS = ("localhost", "127.0.0.1", "[::1]")
EXEMPT_PATHS = frozenset({"/healthz"})
_NAME = re.compile(r"[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*")
_PORT = re.compile(r"[0-9]{1,5}")
BAD_HOST_BODY = (
    b'{"error":"bad_host","detail":"The Host header does not name this site. '
    b'Use the address the site is published at."}'
)


def host_name(value: str) -> str | None:
    """The host name of a ``Host`` header value (lower case, no trailing dot, no port), or None
    when it is not a well-formed ``host[:port]`` (an IPv6 literal keeps its brackets)."""
    text = value.strip().lower()
    if text.startswith("["):
        end = text.find("]")
        name, rest = text[: end + 1], text[end + 1 :]
        try:
            ipaddress.IPv6Address(name[1:-1])
        except ValueError:
            return None
    else:
        name, _, port = text.partition(":")
        rest = f":{port}" if _ else ""
        name = name[:-1] if name.endswith(".") else name
        if not _NAME.fullmatch(name) or len(name) > 253:
            return None
    if rest and not (rest.startswith(":") and _PORT.fullmatch(rest[1:])):
        return None
    return name


def normalise_allowed_host(value: str) -> str:
    """An entry of ``TORCHDRILL_ALLOWED_HOSTS`` as it is compared, or ValueError."""
    name = host_name(value)
    port = value.rpartition("]")[2] if value.strip().startswith("[") else value
    if name is None or ":" in port:
        raise ValueError(f"TORCHDRILL_ALLOWED_HOSTS: {value!r} is not a host name (no scheme, no port)")
    return name


def check_proxy_address(value: str) -> str:
    """An entry of ``TORCHDRILL_FORWARDED_ALLOW_IPS`` (an address, a network, or "*"), or ValueError."""
    if value == "*":
        return value
    try:
        ipaddress.ip_network(value, strict=False) if "/" in value else ipaddress.ip_address(value)
    except ValueError:
        raise ValueError(
            f"TORCHDRILL_FORWARDED_ALLOW_IPS: {value!r} is not an IP address or network"
        ) from None
    return value


def allowed_hosts(settings: Settings) -> frozenset[str]:
    """Every host name the app answers for."""
    names = {host_name(urlsplit(public_url(settings)).netloc) or "", *settings.allowed_hosts}
    if settings.env == "development":
        names.update(DEVELOPMENT_HOSTS)
    names.discard("")
    return frozenset(names)


class AllowedHostsMiddleware:
    """Answers 400 (JSON) to a request without exactly one ``Host`` naming an allowed host.

    Pure ASGI like ``app.kit.headers``: a header scan and a set lookup per request."""

    def __init__(self, app: ASGIApp, hosts: frozenset[str]) -> None:
        self.app = app
        self.hosts = hosts
        # The few Host values a site sees, parsed once (~7 -> ~1 µs a request); bounded, so a
        # stream of made-up values costs memory for 512 at most.
        self._names: Callable[[bytes], bool] = lru_cache(maxsize=512)(self._names_allowed_host)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or self.allowed(scope):
            await self.app(scope, receive, send)
            return
        await send(
            {
                "type": "http.response.start",
                "status": 400,
                "headers": [
                    (b"content-type", b"application/json"),
                    (b"content-length", str(len(BAD_HOST_BODY)).encode()),
                ],
            }
        )
        await send({"type": "http.response.body", "body": BAD_HOST_BODY})

    def allowed(self, scope: Scope) -> bool:
        if scope["path"] in EXEMPT_PATHS:
            return True
        values = [value for key, value in scope["headers"] if key == b"host"]
        return len(values) == 1 and self._names(values[0])

    def _names_allowed_host(self, value: bytes) -> bool:
        return host_name(value.decode("latin-1")) in self.hosts
