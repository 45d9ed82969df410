"""Listeners told, in the changing transaction, when the course's work of some students changed.

Which work is the course's (``app.courses.visibility``) moves with an assignment's dates or
problems, a student's extension and their enrolment periods. Domains above this one that keep
state derived from that rule (``app.analytics``) install a listener at start-up, so the state is
brought up to date where the change is made, only for the students it touches, and never on a read.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from sqlalchemy.orm import Session

# (session, course id, assignment ids or None for all the course's, user ids or None for all its students)
WorkChanged = Callable[[Session, int, Sequence[int] | None, Sequence[int] | None], None]
_listeners: dict[str, WorkChanged] = {}


def install(name: str, listener: WorkChanged) -> None:
    """Install (or replace) the listener ``name``; idempotent."""
    _listeners[name] = listener


def changed(
    session: Session,
    course_id: int,
    assignment_ids: Sequence[int] | None = None,
    user_ids: Sequence[int] | None = None,
) -> None:
    """The course's work of ``user_ids`` (None: all) on ``assignment_ids`` (None: all) changed."""
    for listener in _listeners.values():
        listener(session, course_id, assignment_ids, user_ids)
