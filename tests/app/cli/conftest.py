"""A real uvicorn server on 127.0.0.1 serving the test app (for the API client commands)."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator

import pytest
import uvicorn
from fastapi import FastAPI

from app.kit.db import Database


def serve_in_thread(app: FastAPI) -> tuple[str, uvicorn.Server, threading.Thread]:
    """Start uvicorn on a free port; the app's lifespan is not run again (it is already running)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    server = uvicorn.Server(
        uvicorn.Config(app, host="127.0.0.1", port=port, lifespan="off", log_level="warning")
    )
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.02)
    assert server.started, "uvicorn did not start"
    return f"http://127.0.0.1:{port}", server, thread


@pytest.fixture
def live_server(app: FastAPI, db: Database) -> Iterator[str]:
    url, server, thread = serve_in_thread(app)
    yield url
    server.should_exit = True
    thread.join(timeout=10)
