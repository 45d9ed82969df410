"""Wiring LTI into a web process: the passback worker, hearing verdicts and applied regrades."""

from __future__ import annotations

import weakref

from sqlalchemy.orm import Session

from app.courses import regrades
from app.courses.models import Assignment
from app.kit.db import Database, on_commit
from app.kit.settings import Settings
from app.lti import passback
from app.lti.worker import PassbackWorker
from app.submissions.dispatch import ResultWaiter

_workers: weakref.WeakSet[PassbackWorker] = weakref.WeakSet()


def _regrade_applied(session: Session, assignment: Assignment) -> None:
    """In the applying transaction: the assignment's linked students are due again; wake the
    workers once it commits."""
    if passback.mark_assignment(session, assignment.id):
        for worker in list(_workers):
            on_commit(session, worker.wake)


def install(settings: Settings, db: Database, waiter: ResultWaiter) -> PassbackWorker:
    worker = PassbackWorker(db, settings.secret_key)
    waiter.listen(worker.on_verdict)
    _workers.add(worker)
    regrades.on_applied(_regrade_applied)
    return worker
