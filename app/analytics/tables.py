"""The analytics tables as Core tables, and what every query module of the domain shares: the
slice a row is about and the size of the ``IN`` lists they send (:func:`chunks`).

The queries live by concern: :mod:`~app.analytics.sources` (what the state is computed from),
:mod:`~app.analytics.windows` (the window rows: the writers' lock and keys),
:mod:`~app.analytics.maintained_rows` (the rows and totals kept) and :mod:`~app.analytics.report_queries`
(the report's reads).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime

from sqlalchemy import Table

from app.analytics.models import (
    AnalyticsAssignment,
    AnalyticsCaseTotal,
    AnalyticsFailure,
    AnalyticsKind,
    AnalyticsKindTotal,
    AnalyticsProgress,
    AnalyticsWindow,
)

WINDOWS: Table = AnalyticsWindow.__table__  # type: ignore[assignment]
PROGRESS: Table = AnalyticsProgress.__table__  # type: ignore[assignment]
FAILURES: Table = AnalyticsFailure.__table__  # type: ignore[assignment]
KINDS: Table = AnalyticsKind.__table__  # type: ignore[assignment]
ASSIGNMENTS: Table = AnalyticsAssignment.__table__  # type: ignore[assignment]
CASE_TOTALS: Table = AnalyticsCaseTotal.__table__  # type: ignore[assignment]
KIND_TOTALS: Table = AnalyticsKindTotal.__table__  # type: ignore[assignment]
CHUNK = 500  # ids per IN list
Slice = tuple[int, int]  # (user, problem)
Marks = tuple[int, datetime | None, datetime | None]  # (counted submissions, first, last)


def chunks(ids: Sequence[int]) -> Iterable[Sequence[int]]:
    for i in range(0, len(ids), CHUNK):
        yield ids[i : i + CHUNK]
