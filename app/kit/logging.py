"""Structured logs: JSON lines that carry the submission id of whatever is being handled.

The formatters and the submission context live in ``runner.logs`` (the runner workers may not
import ``app`` and write the same lines); this module adds what only the web needs: the access-log
middleware and the process-wide set-up.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import MutableMapping
from typing import Any, Literal

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from runner.logs import (
    JsonFormatter,
    SubmissionFilter,
    TextFormatter,
    current_submission,
    submission_context,
)

__all__ = [
    "JsonFormatter",
    "SubmissionFilter",
    "SubmissionLogMiddleware",
    "TextFormatter",
    "configure_logging",
    "current_submission",
    "submission_context",
    "tag_request",
]

_STATE_KEY = "submission_id"


def tag_request(state: Any, submission_id: int) -> None:
    """Say which submission a request is about (``request.state``), for its access-log line."""
    setattr(state, _STATE_KEY, submission_id)


def _submission_of(scope: Scope) -> int | None:
    state: MutableMapping[str, Any] = scope.get("state") or {}
    tagged = state.get(_STATE_KEY)
    if isinstance(tagged, int):
        return tagged
    raw = (scope.get("path_params") or {}).get(_STATE_KEY)
    try:
        return int(raw) if raw is not None else None
    except (TypeError, ValueError):
        return None


class SubmissionLogMiddleware:
    """Puts the submission a request is about on the server's access-log line.

    uvicorn writes that line while the response starts, inside ``send``: this wraps ``send`` so
    the submission id (a ``{submission_id}`` path parameter, or one a route gave with
    :func:`tag_request`) is in the logging context at that moment.
    """

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        scope.setdefault("state", {})

        async def send_tagged(message: Message) -> None:
            submission_id = _submission_of(scope) if message["type"] == "http.response.start" else None
            if submission_id is None:
                await send(message)
                return
            with submission_context(submission_id):
                await send(message)

        await self.app(scope, receive, send_tagged)


def configure_logging(
    fmt: Literal["text", "json"] = "text", level: str = "INFO", service: str = "web"
) -> logging.Handler:
    """Send every logger's records to stderr in ``fmt``; returns the installed handler."""
    handler = logging.StreamHandler(sys.stderr)
    handler.addFilter(SubmissionFilter())
    handler.setFormatter(JsonFormatter(service) if fmt == "json" else TextFormatter())
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level.upper())
    for name in ("uvicorn", "uvicorn.error", "uvicorn.access", "celery"):
        logger = logging.getLogger(name)
        logger.handlers[:] = []
        logger.propagate = True
    # Celery's per-task lines ("received", "succeeded") cannot carry the submission id; ours do.
    for name in ("celery.worker.strategy", "celery.app.trace"):
        logging.getLogger(name).setLevel(logging.WARNING)
    return handler
