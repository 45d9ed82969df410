"""One shape of log line for every process: JSON (or text) that carries the submission id.

Code that works on one submission wraps the work in :func:`submission_context`; every line
emitted inside it (by any logger, in this thread or task) gets ``submission_id``. The web, the
recorder and the runner workers all format with :class:`JsonFormatter`, so one query over the
logs follows a submission from the request through the runner to the recorder. This module is in
``runner/`` because the runner may not import ``app``; ``app.kit.logging`` builds on it.
"""

from __future__ import annotations

import contextvars
import json
import logging
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

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
