"""What else a verdict updates in its own transaction: listeners installed by domains above this one.

``app.progress`` sits below ``app.submissions`` and is called directly; state that depends on
courses (``app.analytics``: which work is a course's is ``app.courses.visibility``'s rule) cannot be
imported from here, so its domain installs a listener. Every process that records verdicts installs
them at start-up (the app factory, the recorder, ``torchdrill submissions rejudge``); a listener
runs inside the verdict's transaction, so a verdict and what it updates commit together or not at
all. Regrade copies are grading records, not practice: listeners never hear of them.
"""

from __future__ import annotations

from typing import Protocol

from sqlalchemy.orm import Session

from app.submissions.models import Submission


class VerdictListener(Protocol):
    def recorded(self, session: Session, submission: Submission) -> None:
        """A verdict was recorded (exactly once); ``submission`` is the finished row (no code)."""

    def reopened(self, session: Session, submission: Submission) -> None:
        """A finished submission was put back in the queue (re-judging): its verdict no longer holds."""


_listeners: dict[str, VerdictListener] = {}


def install(name: str, listener: VerdictListener) -> None:
    """Install (or replace) the listener ``name``; idempotent."""
    _listeners[name] = listener


def installed() -> list[str]:
    return sorted(_listeners)


def recorded(session: Session, submission: Submission) -> None:
    if submission.is_copy:
        return
    for listener in _listeners.values():
        listener.recorded(session, submission)


def reopened(session: Session, submission: Submission) -> None:
    if submission.is_copy:
        return
    for listener in _listeners.values():
        listener.reopened(session, submission)
