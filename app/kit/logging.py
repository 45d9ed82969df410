"""Structured logs: JSON lines that carry the submission id of whatever is being handled.

Code that works on one submission wraps the work in :func:`submission_context`; every log line
emitted inside it (by any logger, in this thread or task) gets ``submission_id``. The runner
worker (which may not import ``app``) writes the same shape, so one query over the logs follows a
submission from the request through the runner to the recorder.
"""

from __future__ import annotations

import contextvars
import json
import logging
import sys
from collections.abc import Iterator, MutableMapping
from contextlib import contextmanager
from typing import Any, Literal

from starlette.types import ASGIApp, Message, Receive, Scope, Send

_submission_id: contextvars.ContextVar[int | None] = contextvars.ContextVar("submission_id", default=None)

# Attributes every LogRecord has; anything else was passed with ``extra=`` and is logged as a field.
_STANDARD = set(logging.makeLogRecord({}).__dict__) | {"message", "asctime", "submission_id"}


@contextmanager
def submission_context(submission_id: int) -> Iterator[None]:
    token = _submission_id.set(submission_id)
    try:
        yield
    finally:
        _submission_id.reset(token)


def current_submission() -> int | None:
    return _submission_id.get()


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


class SubmissionFilter(logging.Filter):
    """Copies the current submission id onto the record (None outside a submission)."""

    def filter(self, record: logging.LogRecord) -> bool:
        if getattr(record, "submission_id", None) is None:
            record.submission_id = _submission_id.get()
        return True


class JsonFormatter(logging.Formatter):
    def __init__(self, service: str) -> None:
        super().__init__()
        self.service = service

    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, Any] = {
            "ts": round(record.created, 3),
            "level": record.levelname.lower(),
            "logger": record.name,
            "message": record.getMessage(),
            "service": self.service,
        }
        submission_id = getattr(record, "submission_id", None)
        if submission_id is not None:
            entry["submission_id"] = submission_id
        for key, value in record.__dict__.items():
            if key not in _STANDARD and not key.startswith("_"):
                entry[key] = value
        if record.exc_info:
            entry["exc"] = self.formatException(record.exc_info)
        return json.dumps(entry, default=str)


class TextFormatter(logging.Formatter):
    def __init__(self) -> None:
        super().__init__("%(asctime)s %(levelname)s %(name)s: %(message)s")

    def format(self, record: logging.LogRecord) -> str:
        line = super().format(record)
        submission_id = getattr(record, "submission_id", None)
        return line if submission_id is None else f"{line} [submission={submission_id}]"


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
