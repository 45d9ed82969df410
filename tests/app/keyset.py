"""Helpers for tests of keyset-paginated lists: walk every page, and read a query's plan."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sqlalchemy import event
from sqlalchemy.orm import Session


def walk(
    get: Callable[[str], Any], url: str, key: str = "items", between: Callable[[int], None] | None = None
) -> list[list[Any]]:
    """Every page from ``url`` on, following ``next``; ``between(n)`` runs after page n is read."""
    pages: list[list[Any]] = []
    while url:
        response = get(url)
        assert response.status_code == 200, response.text
        body = response.json()
        pages.append(body[key])
        assert len(pages) < 200, "next links never end"
        if between is not None:
            between(len(pages))
        url = body["next"]
    return pages


def plan_of(session: Session, query: Callable[[], object]) -> str:
    """The database's plan of the first SELECT that ``query()`` sends (the real statement, with its
    real parameters). On PostgreSQL sequential and bitmap scans and sorts are discouraged, so a
    tiny test table still shows whether an index can serve the query in its order (a plan that has
    no such index still sorts)."""
    connection = session.connection()
    sent: list[tuple[str, Any]] = []

    def record(conn: Any, cursor: Any, statement: str, parameters: Any, context: Any, many: bool) -> None:
        if statement.lstrip().upper().startswith("SELECT"):
            sent.append((statement, parameters))

    event.listen(connection, "before_cursor_execute", record)
    try:
        query()
    finally:
        event.remove(connection, "before_cursor_execute", record)
    assert sent, "the query sent no SELECT"
    statement, parameters = sent[0]  # (then eager loads of relationships, if any)
    if connection.dialect.name == "postgresql":
        for setting in ("enable_seqscan", "enable_bitmapscan", "enable_sort"):  # discouraged, not forbidden
            connection.exec_driver_sql(f"SET LOCAL {setting} = off")
        return "\n".join(r[0] for r in connection.exec_driver_sql("EXPLAIN " + statement, parameters))
    return "\n".join(r[-1] for r in connection.exec_driver_sql("EXPLAIN QUERY PLAN " + statement, parameters))


def assert_ordered_by_index(explained: str, index: str) -> None:
    """The plan reads ``index`` and needs no sort of its own: pages cost the same at any depth."""
    assert index in explained, explained
    assert "TEMP B-TREE" not in explained and "Sort" not in explained, explained
