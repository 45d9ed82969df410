"""What else a verdict updates in its own transaction: listeners installed by domains above this one.

``app.progress`` sits below ``app.submissions`` and is called directly; state that depends on
courses (``app.analytics``: which work is a course's is ``app.courses.visibility``'s rule) cannot be
imported from here, so its domain installs a listener. Every process that records verdicts installs
them at start-up (the app factory, the recorder, ``torchdrill submissions rejudge``); a listener
runs inside the verdict's transaction, so a verdict and what it updates commit together or not at
all. Regrade copies are grading records, not practice: listeners never hear of them; a domain
that waits for a copy's verdict (a test report's re-judge: ``app.reports.outcomes``) installs a
copy listener for its idempotency-key prefix instead (:func:`on_copy_finished`).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Protocol

from sqlalchemy.orm import Session

from app.submissions.models import Submission

log = logging.getLogger(__name__)


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


CopyFinished = Callable[[Session, Submission], None]
_copy_listeners: dict[str, CopyFinished] = {}


def on_copy_finished(key_prefix: str, listener: CopyFinished) -> None:
    """Call ``listener(session, row)`` in the verdict's transaction when a re-judged copy whose
    idempotency key starts with ``key_prefix`` is finished (once: the verdict is recorded once).

    Domains above this one install theirs at start-up (a test report's outcome mail:
    ``app.reports.outcomes``); registering the same prefix again replaces the listener. Only copies
    are looked at, so a learner's own verdict pays nothing for it.
    """
    _copy_listeners[key_prefix] = listener


def copy_prefixes() -> list[str]:
    """The idempotency-key prefixes whose copies have a listener installed."""
    return sorted(_copy_listeners)


def copy_finished(session: Session, submission: Submission) -> None:
    key = submission.idempotency_key or ""
    for prefix, listener in list(_copy_listeners.items()):
        if key.startswith(prefix):
            try:  # in a savepoint: a listener's failure never costs the verdict
                with session.begin_nested():
                    listener(session, submission)
            except Exception:
                log.exception("the listener of %r failed on submission %s", prefix, submission.id)
