"""Absolute links (mails, payment providers, invitations): made from configuration only.

Every absolute URL the app hands out comes from :func:`absolute_url`, which starts from
``TORCHDRILL_PUBLIC_URL`` and never from the request: a ``Host`` header is the client's to choose,
so a link built from it could carry a victim's reset token to an attacker's host.
"""

from __future__ import annotations

from typing import TYPE_CHECKING
from urllib.parse import urlencode, urlsplit

if TYPE_CHECKING:
    from app.kit.settings import Settings


def parse_public_url(url: str) -> str:
    """``url`` as the site's base (scheme and host, optional port, no trailing slash), or ValueError."""
    text = url.strip()
    try:
        parts = urlsplit(text)
        port = parts.port  # raises on a port that is not a number
    except ValueError:
        raise ValueError(f"TORCHDRILL_PUBLIC_URL {text!r} is not a URL") from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError("TORCHDRILL_PUBLIC_URL must be an http(s) address, e.g. https://drill.example.org")
    if parts.username is not None or parts.password is not None:
        raise ValueError("TORCHDRILL_PUBLIC_URL must not hold a user name or password")
    if parts.path not in ("", "/") or parts.query or parts.fragment:
        raise ValueError(
            "TORCHDRILL_PUBLIC_URL is the site's root (scheme, host and port only): Torchdrill is "
            "served at the root of its host, e.g. https://drill.example.org"
        )
    host = parts.hostname.rstrip(".")
    if ":" in host:  # an IPv6 literal keeps its brackets
        host = f"[{host}]"
    return f"{parts.scheme}://{host}" + (f":{port}" if port is not None else "")


def public_url(settings: Settings) -> str:
    """The site's base URL: ``TORCHDRILL_PUBLIC_URL``, or in development http://127.0.0.1:PORT."""
    return settings.public_url or f"http://127.0.0.1:{settings.port}"


def absolute_url(settings: Settings, path: str, **query: str) -> str:
    """``path`` (site-relative, starting with one "/") on the public URL, with ``query`` encoded."""
    if not path.startswith("/") or path.startswith("//") or "\\" in path:
        raise ValueError(f"not a site path: {path!r}")
    return public_url(settings) + path + (f"?{urlencode(query)}" if query else "")
