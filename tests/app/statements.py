"""A helper for tests that check what a request sends to the database."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

from sqlalchemy import Engine, event


@contextlib.contextmanager
def sent_statements(engine: Engine) -> Iterator[list[str]]:
    """Every statement ``engine`` sends inside the block, its whitespace collapsed, in order."""
    sent: list[str] = []

    def record(_conn: Any, _cursor: Any, statement: str, *_args: Any) -> None:
        sent.append(" ".join(statement.split()))

    event.listen(engine, "before_cursor_execute", record)
    try:
        yield sent
    finally:
        event.remove(engine, "before_cursor_execute", record)
