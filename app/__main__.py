"""``python -m app``: serve Torchdrill with uvicorn on TORCHDRILL_HOST:TORCHDRILL_PORT."""

from __future__ import annotations

import logging
from typing import Any

import uvicorn

from app.kit.links import public_url
from app.kit.logging import configure_logging
from app.kit.settings import Settings, get_settings
from app.main import create_app

log = logging.getLogger("torchdrill")

# uvicorn's C HTTP parser (httptools) and event loop (uvloop), both locked dependencies, named
# explicitly so a missing one fails at start instead of falling back to the slower pure-Python
# h11 and asyncio loop (about 1 ms of CPU more per request: docs/benchmarks.md).
SERVER_OPTIONS: dict[str, Any] = {"http": "httptools", "loop": "uvloop"}


def server_config(app: Any, host: str, port: int, **options: Any) -> uvicorn.Config:
    """The uvicorn configuration Torchdrill is served with (``python -m app`` and ``bench.web``)."""
    return uvicorn.Config(app, host=host, port=port, **(SERVER_OPTIONS | options))


def proxy_options(settings: Settings) -> dict[str, Any]:
    """uvicorn's proxy-headers support, on only for ``TORCHDRILL_FORWARDED_ALLOW_IPS``: a request
    from one of those peers gets its client address from X-Forwarded-For and its scheme from
    X-Forwarded-Proto; any other peer's headers are ignored (app/kit/hosts.py)."""
    if not settings.forwarded_allow_ips:
        return {"proxy_headers": False}
    return {"proxy_headers": True, "forwarded_allow_ips": ",".join(settings.forwarded_allow_ips)}


def main() -> None:
    settings = get_settings()
    configure_logging(settings.log_format, service="web")
    app = create_app(settings)
    if settings.env == "production" and not settings.forwarded_allow_ips:
        log.warning(
            "TORCHDRILL_FORWARDED_ALLOW_IPS is empty: every client is identified by its TCP peer. "
            "Behind a reverse proxy, set it to the proxy's address, or rate limits count the proxy "
            "as one client (docs/deploy.md)"
        )
    print(f"Torchdrill is serving on {public_url(settings)}/ (listening on {settings.host}:{settings.port})",
          flush=True)  # fmt: skip
    uvicorn.run(
        app, host=settings.host, port=settings.port, log_level="info", log_config=None,
        **(SERVER_OPTIONS | proxy_options(settings)),
    )  # fmt: skip


if __name__ == "__main__":
    main()
