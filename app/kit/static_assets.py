"""The static files (``app/static``), served with content-hashed names, compressed and cached.

Templates ask ``static_url("js/app.js")`` and get ``/static/js/app.<hash>.js``: a name that changes
whenever the file does, so browsers may keep it for a year (``immutable``) and never revalidate.
The plain name still answers (scripts and old pages that ask it), with ``no-cache`` and an ETag so a
browser revalidates it. Text files go out gzip-compressed when the browser accepts it, compressed
once per file version and kept in memory (the whole folder is well under a few MB).

A file changed on disk (``npm run build`` while the server runs) is noticed at the next
``static_url`` or request for it: its size and modification time are checked, which costs a
``stat``; the content is read and hashed again only when they moved.
"""

from __future__ import annotations

import gzip
import hashlib
import mimetypes
import threading
from dataclasses import dataclass
from email.utils import formatdate
from pathlib import Path

from starlette._utils import get_route_path
from starlette.responses import Response
from starlette.types import Receive, Scope, Send

HASH_CHARS = 10
IMMUTABLE = "public, max-age=31536000, immutable"
REVALIDATE = "no-cache"
COMPRESSIBLE = {"application/javascript", "text/javascript", "text/css", "application/json",
                "image/svg+xml", "text/plain", "text/html"}  # fmt: skip
MIN_COMPRESS_BYTES = 512


@dataclass(frozen=True)
class Asset:
    """One version of one file: its bytes, their gzip form (text only) and its hashed name."""

    logical: str  # "js/app.js"
    hashed: str  # "js/app.0123456789.js"
    etag: str
    content_type: str
    body: bytes
    gzipped: bytes | None
    stamp: tuple[int, int]  # (size, mtime_ns) when read
    last_modified: str


def hashed_name(logical: str, digest: str) -> str:
    """``js/app.js`` -> ``js/app.<digest>.js`` (the hash before the last extension)."""
    folder, _, name = logical.rpartition("/")
    stem, dot, ext = name.rpartition(".")
    named = f"{stem}.{digest}.{ext}" if dot else f"{name}.{digest}"
    return f"{folder}/{named}" if folder else named


def _content_type(logical: str) -> str:
    guessed, _ = mimetypes.guess_type(logical)
    kind = guessed or "application/octet-stream"
    if kind.startswith("text/") or kind in ("application/javascript", "application/json"):
        return kind + "; charset=utf-8"
    return kind


class StaticAssets:
    """The files under ``root`` by their plain and hashed names (thread-safe; read lazily)."""

    def __init__(self, root: Path) -> None:
        self.root = root.resolve()
        self._by_logical: dict[str, Asset] = {}
        self._by_hashed: dict[str, Asset] = {}
        self._lock = threading.Lock()

    def _path(self, logical: str) -> Path | None:
        if not logical or logical.startswith("/") or "\\" in logical or "\x00" in logical:
            return None
        path = (self.root / logical).resolve()
        if not path.is_relative_to(self.root) or path.name.startswith("."):
            return None  # no ../, no symlink out of the folder, no dotfiles
        return path

    def asset(self, logical: str) -> Asset | None:
        """The current version of ``logical`` (None when it is not a file under the root)."""
        path = self._path(logical)
        if path is None:
            return None
        try:
            st = path.stat()
        except OSError:
            return None
        if not path.is_file():
            return None
        stamp = (st.st_size, st.st_mtime_ns)
        known = self._by_logical.get(logical)
        if known is not None and known.stamp == stamp:
            return known
        return self._load(logical, path, stamp, st.st_mtime)

    def _load(self, logical: str, path: Path, stamp: tuple[int, int], mtime: float) -> Asset:
        body = path.read_bytes()
        digest = hashlib.sha256(body).hexdigest()[:HASH_CHARS]
        content_type = _content_type(logical)
        compress = content_type.split(";")[0] in COMPRESSIBLE and len(body) >= MIN_COMPRESS_BYTES
        gzipped = gzip.compress(body, compresslevel=9, mtime=0) if compress else None
        asset = Asset(
            logical=logical,
            hashed=hashed_name(logical, digest),
            etag=f'"{digest}"',
            content_type=content_type,
            body=body,
            gzipped=gzipped if gzipped is not None and len(gzipped) < len(body) else None,
            stamp=stamp,
            last_modified=formatdate(mtime, usegmt=True),
        )
        with self._lock:
            old = self._by_logical.get(logical)
            if old is not None:
                self._by_hashed.pop(old.hashed, None)
            self._by_logical[logical] = asset
            self._by_hashed[asset.hashed] = asset
        return asset

    def url(self, logical: str) -> str:
        """``/static/<hashed name>``; the plain name when the file is missing (a 404 tells the truth)."""
        asset = self.asset(logical)
        return "/static/" + (asset.hashed if asset else logical)

    def lookup(self, requested: str) -> tuple[Asset, bool] | None:
        """The asset a request path names and whether it named the hashed (immutable) version."""
        known = self._by_hashed.get(requested)
        if known is not None:
            current = self.asset(known.logical)  # still on disk, still this version?
            if current is not None and current.hashed == requested:
                return current, True
            return None
        asset = self.asset(requested)
        if asset is not None:
            return asset, False
        logical = _unhashed(requested)  # a hashed name asked before any page named it
        if logical is not None:
            asset = self.asset(logical)
            if asset is not None and asset.hashed == requested:
                return asset, True
        return None


def _unhashed(requested: str) -> str | None:
    """``js/app.<digest>.js`` -> ``js/app.js`` (None when the name carries no digest)."""
    folder, _, name = requested.rpartition("/")
    parts = name.split(".")
    at = len(parts) - 2 if len(parts) > 2 else len(parts) - 1
    if at < 1 or not _is_digest(parts[at]):
        return None
    plain = ".".join(parts[:at] + parts[at + 1 :])
    return f"{folder}/{plain}" if folder else plain


def _is_digest(text: str) -> bool:
    return len(text) == HASH_CHARS and all(c in "0123456789abcdef" for c in text)


def _accepts_gzip(header: str) -> bool:
    for part in header.split(","):
        coding, _, params = part.strip().partition(";")
        if coding.strip().lower() in ("gzip", "*"):
            return params.replace(" ", "") not in ("q=0", "q=0.0", "q=0.00", "q=0.000")
    return False


class StaticAssetsApp:
    """The ASGI app mounted at ``/static``: GET and HEAD, 304 on a matching ETag, gzip when accepted."""

    def __init__(self, assets: StaticAssets) -> None:
        self.assets = assets

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        assert scope["type"] == "http"
        method = scope["method"]
        if method not in ("GET", "HEAD"):
            await Response(status_code=405, headers={"Allow": "GET, HEAD"})(scope, receive, send)
            return
        requested = get_route_path(scope).lstrip("/")  # the path under the mount
        found = self.assets.lookup(requested)
        if found is None:
            await Response("Not Found", status_code=404, media_type="text/plain")(scope, receive, send)
            return
        asset, immutable = found
        headers = {
            "Cache-Control": IMMUTABLE if immutable else REVALIDATE,
            "ETag": asset.etag,
            "Last-Modified": asset.last_modified,
            "Vary": "Accept-Encoding",
        }
        request_headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        if asset.etag in request_headers.get("if-none-match", ""):
            await Response(status_code=304, headers=headers)(scope, receive, send)
            return
        body = asset.body
        if asset.gzipped is not None and _accepts_gzip(request_headers.get("accept-encoding", "")):
            body = asset.gzipped
            headers["Content-Encoding"] = "gzip"
        response = Response(body if method == "GET" else b"", headers=headers, media_type=asset.content_type)
        response.headers["Content-Length"] = str(len(body))
        await response(scope, receive, send)
