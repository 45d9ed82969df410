"""The stuck and not-started lists: the first ``service.LIST_SHOWN`` students unless every one is
asked for (``?lists=all``), with how many there are in all; the per-problem figures count all."""

from __future__ import annotations

from app.analytics import service
from app.kit.db import Database
from tests.app.analytics.classroom import make_class, wrong


def test_the_lists_are_bounded_and_say_how_many(db: Database) -> None:
    room = make_class(db, students=5)
    stuck = room.students[:3]
    for who in stuck:
        for minute in range(5):
            room.solve(who, "add-tensors", 10 + minute, wrong(("broadcast", "values")))
    with db.transaction() as session:
        course, assignment = room.course(session), room.assignment(session)
        every = service.assignment_analytics(session, course, assignment, None)
        first = service.assignment_analytics(session, course, assignment, 1)
        default = service.assignment_analytics(session, course, assignment)
        one = service.problem_analytics(session, course, assignment, "add-tensors", 2)
    assert (len(every.stuck), every.stuck_total) == (3, 3)
    assert (len(every.not_started), every.not_started_total) == (2, 2)
    assert (len(first.stuck), first.stuck_total) == (1, 3)
    assert (len(first.not_started), first.not_started_total) == (1, 2)
    assert first.stuck[0] == every.stuck[0] and first.not_started[0] == every.not_started[0]
    assert first.problems == every.problems  # the figures count every student
    assert first.problems[0].stuck == 3
    assert default.stuck == every.stuck and service.LIST_SHOWN >= 3
    assert (len(one.stuck), one.stuck_total, one.problem.stuck) == (2, 3, 3)
    assert (len(one.not_started), one.not_started_total) == (2, 2)
