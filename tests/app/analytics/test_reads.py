"""An analytics read writes nothing and takes no lock: a verdict recorded while a page is being
read (right after a change of the course's work) is never kept waiting for it."""

from __future__ import annotations

import threading
from datetime import timedelta

from app.analytics import service, state
from app.courses import assignments
from app.kit.db import Database, utcnow
from tests.app.analytics.classroom import ACCEPTED, make_class, wrong

DEADLINE = 20.0  # seconds: far above a verdict's cost, far below a lock wait's end


def test_a_verdict_is_not_blocked_by_an_analytics_read(db: Database) -> None:
    room = make_class(db, students=2)
    a, extended = room.students
    room.solve(extended, "add-tensors", 60 * 24 * 3 + 30, wrong(("batch_of_one", "shape")))  # after due
    pending = room.submit(extended, "add-tensors", 60 * 24 * 3 + 40)
    with db.transaction() as session:  # the extension moves the student's window
        assignments.set_extension(
            session, room.assignment(session), extended.id, due_at=(utcnow() + timedelta(days=5)).isoformat()
        )
    done = threading.Event()
    failed: list[BaseException] = []

    def verdict() -> None:
        try:
            room.record(pending, ACCEPTED)
        except BaseException as error:  # reported by the test below
            failed.append(error)
        finally:
            done.set()

    with db.transaction() as session:  # the page's transaction stays open while the verdict comes
        report = service.assignment_analytics(session, room.course(session), room.assignment(session))
        assert report.problems[0].top_case is not None  # the extension's work was counted already
        assert not session.new and not session.dirty and not session.deleted
        worker = threading.Thread(target=verdict)
        worker.start()
        finished_in_time = done.wait(DEADLINE)
    worker.join(DEADLINE)
    assert finished_in_time, "the verdict waited for the analytics read"
    assert not failed, failed
    assert _report_solved(db, room) == 1
    room.solve(a, "add-tensors", 5, ACCEPTED)
    assert _report_solved(db, room) == 2
    with db.transaction() as session:
        assert state.compare(session).in_step


def _report_solved(db: Database, room) -> int:  # type: ignore[no-untyped-def]
    with db.transaction() as session:
        return (
            service.assignment_analytics(session, room.course(session), room.assignment(session))
            .problems[0]
            .solved
        )
