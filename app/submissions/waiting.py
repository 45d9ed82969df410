"""``?wait=true``: block until a submission's verdict is recorded, or a timeout passes (one helper).

Woken by the judge's notification (:class:`ResultWaiter`), not by polling; each check reads the
database in a fresh session, so a verdict recorded by another process (the scaled-out recorder)
is seen too.
"""

from __future__ import annotations

from app.kit.db import Database
from app.submissions.dispatch import ResultWaiter
from app.submissions.service import is_finished


def wait_finished(db: Database, waiter: ResultWaiter, submission_id: int, seconds: float) -> bool:
    """Whether the submission is finished, after waiting at most ``seconds`` for it to be."""

    def finished() -> bool:
        with db.sessionmaker() as fresh:
            return is_finished(fresh, submission_id)

    return waiter.wait(submission_id, finished, seconds)
