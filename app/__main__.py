"""``python -m app``: serve Torchdrill with uvicorn on TORCHDRILL_HOST:TORCHDRILL_PORT."""

from __future__ import annotations

import uvicorn

from app.kit.logging import configure_logging
from app.kit.settings import get_settings
from app.main import create_app


def main() -> None:
    settings = get_settings()
    configure_logging(settings.log_format, service="web")
    app = create_app(settings)
    print(f"Torchdrill is serving on http://{settings.host}:{settings.port}/", flush=True)
    uvicorn.run(
        app, host=settings.host, port=settings.port, proxy_headers=False, log_level="info", log_config=None
    )


if __name__ == "__main__":
    main()
