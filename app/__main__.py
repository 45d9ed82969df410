"""``python -m app``: serve Torchdrill with uvicorn on TORCHDRILL_HOST:TORCHDRILL_PORT."""

from __future__ import annotations

from typing import Any

import uvicorn

from app.kit.logging import configure_logging
from app.kit.settings import get_settings
from app.main import create_app

# uvicorn's C HTTP parser (httptools) and event loop (uvloop), both locked dependencies, named
# explicitly so a missing one fails at start instead of falling back to the slower pure-Python
# h11 and asyncio loop (about 1 ms of CPU more per request: docs/benchmarks.md).
SERVER_OPTIONS: dict[str, Any] = {"http": "httptools", "loop": "uvloop"}


def server_config(app: Any, host: str, port: int, **options: Any) -> uvicorn.Config:
    """The uvicorn configuration Torchdrill is served with (``python -m app`` and ``bench.web``)."""
    return uvicorn.Config(app, host=host, port=port, **(SERVER_OPTIONS | options))


def main() -> None:
    settings = get_settings()
    configure_logging(settings.log_format, service="web")
    app = create_app(settings)
    print(f"Torchdrill is serving on http://{settings.host}:{settings.port}/", flush=True)
    uvicorn.run(
        app, host=settings.host, port=settings.port, proxy_headers=False, log_level="info", log_config=None,
        **SERVER_OPTIONS,
    )  # fmt: skip


if __name__ == "__main__":
    main()
