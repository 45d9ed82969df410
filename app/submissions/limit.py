"""The per-user submission limit: at most N new submissions in any minute, on every route.

Every way a learner makes a submission — the problem page (run, submit, run with my input) and
``POST /api/v1/submissions`` in every mode — goes through :func:`hold_to_rate` inside the
transaction that inserts it, before the insert. Counting and then inserting is not atomic by
itself (a burst of requests all count N-1 and all insert), so the count is taken only after
locking the user's gate row (``repository.take_gate``): the user's concurrent submissions pass
one at a time, each counting the ones committed before it, on SQLite and PostgreSQL alike (and
across web processes, since the lock lives in the database). The window slides: the answer's
``Retry-After`` is when the oldest submission in it leaves it.

Course regrades' re-judged copies belong to a system account and are not made here.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from sqlalchemy.orm import Session

from app.kit.errors import TooManyRequests
from app.submissions import repository

WINDOW = timedelta(minutes=1)


def hold_to_rate(session: Session, user_id: int, per_minute: int, now: datetime) -> None:
    """Refuse (429, with ``Retry-After``) a new submission beyond ``per_minute`` in the last minute.

    Call it in the transaction that inserts the submission, before the insert: the gate it takes
    is held until that transaction ends, so the count and the insert are one step for this user.
    """
    repository.take_gate(session, user_id, now)
    count, oldest = repository.count_since(session, user_id, now - WINDOW)
    if count >= per_minute:
        # ``now`` was read before the gate was taken: a submission committed meanwhile may be newer.
        wait = min((oldest or now) + WINDOW - now, WINDOW).total_seconds()
        raise TooManyRequests(
            f"At most {per_minute} submissions a minute; try again in {max(1, round(wait))} s.",
            retry_after_s=wait,
        )
