"""``python -m app``: serve Torchdrill with uvicorn on TORCHDRILL_HOST:TORCHDRILL_PORT."""

from __future__ import annotations

import logging

import uvicorn

from app.kit.settings import get_settings
from app.main import create_app


def main() -> None:
    settings = get_settings()
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    app = create_app(settings)
    print(f"Torchdrill is serving on http://{settings.host}:{settings.port}/", flush=True)
    uvicorn.run(app, host=settings.host, port=settings.port, proxy_headers=False, log_level="info")


if __name__ == "__main__":
    main()
