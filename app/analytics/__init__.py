"""Analytics for an instructor: where a class stands on an assignment, and where it is stuck.

Per assignment and problem: who attempted and solved, the median time and attempts to solve,
which cases and rules fail most, the failure kinds over time, who has not started and who is
stuck. Pages and ``/api/v1`` read state maintained as verdicts are recorded (a listener that
:func:`install` puts on ``app.submissions.verdict_listeners``), in the verdict's transaction, so
their cost follows the class's size and not its history; only work that
``app.courses.visibility`` gives the course is counted, and ``torchdrill analytics check|rebuild``
compares or rebuilds the state from the submissions table.
"""

from __future__ import annotations


def install() -> None:
    """Keep the analytics state with every verdict recorded in this process (idempotent)."""
    from app.analytics import state
    from app.courses import work_changes
    from app.submissions import verdict_listeners

    verdict_listeners.install("course-analytics", state.LISTENER)
    work_changes.install("course-analytics", state.work_changed)
