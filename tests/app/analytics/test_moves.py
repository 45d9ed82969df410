"""A change of the course's work (dates, problems) for the whole class recomputes only the rows
whose counted work it changed, and leaves the state equal to a rebuild at every step."""

from __future__ import annotations

import random
from datetime import timedelta

from app.analytics import service, state
from app.analytics.views import AssignmentAnalytics
from app.courses import assignments, enrolment
from app.courses.models import Assignment
from app.kit.db import Database
from tests.app.analytics.classroom import ACCEPTED, Classroom, make_class, wrong


def _in_step(db: Database) -> bool:
    with db.transaction() as session:
        return state.compare(session).in_step


def _report(db: Database, room: Classroom) -> AssignmentAnalytics:
    with db.transaction() as session:
        return service.assignment_analytics(session, room.course(session), room.assignment(session))


def _edit(
    db: Database, room: Classroom, *, release: float, due: float, slugs: list[str] | None = None
) -> None:
    """The instructor's edit: release and due ``release``/``due`` minutes after the class started."""
    with db.transaction() as session:
        course, assignment = room.course(session), room.assignment(session)
        checked = assignments.check_fields(
            session, course, title=assignment.title,
            problem_slugs=slugs or [p.slug for p in assignments.assignment_problems(session, assignment)],
            release_at=(room.start + timedelta(minutes=release)).isoformat(),
            due_at=(room.start + timedelta(minutes=due)).isoformat(), late=None,
            after_last=assignment.after_last,
        )  # fmt: skip
        assignments.update_assignment(session, assignment, checked)


def _marks(db: Database, room: Classroom) -> tuple[int, int]:
    report = _report(db, room)
    return report.problems[0].attempted, report.problems[0].solved


def test_due_date_moves_recompute_exactly_the_work_they_change(db: Database) -> None:
    room = make_class(db, students=3)
    early, late, both = room.students
    room.solve(early, "add-tensors", 10, wrong(("batch_of_one", "shape")))
    room.solve(early, "add-tensors", 20, ACCEPTED)
    room.solve(late, "add-tensors", 30, wrong(("broadcast", "values")))
    room.solve(late, "add-tensors", 200, ACCEPTED)  # after a due time at 100 minutes
    room.solve(both, "add-tensors", 5, wrong(("batch_of_one", "shape")))  # before a release at 8
    room.solve(both, "add-tensors", 150, ACCEPTED)
    assert _in_step(db) and _marks(db, room) == (3, 3)

    _edit(db, room, release=-60, due=100)  # drops the work after 100 at the end
    assert _in_step(db) and _marks(db, room) == (3, 1)
    _edit(db, room, release=-60, due=110)  # changes no student's work: rows kept, keys moved
    assert _in_step(db) and _marks(db, room) == (3, 1)
    _edit(db, room, release=8, due=180)  # drops `both`'s first Submit, adds `both`'s solve
    assert _in_step(db) and _marks(db, room) == (3, 2)
    report = _report(db, room)
    assert report.problems[0].top_case is not None
    assert (report.problems[0].top_case.key, report.problems[0].top_case.students) == (
        "hidden:batch_of_one",
        1,
    )
    _edit(db, room, release=-60, due=60 * 24)  # everything back
    assert _in_step(db) and _marks(db, room) == (3, 3)
    # Nothing counted in a window before any work; everything counts again after.
    _edit(db, room, release=-60, due=1)
    assert _in_step(db) and _marks(db, room) == (0, 0)
    _edit(db, room, release=-60, due=60 * 24)
    assert _in_step(db) and _marks(db, room) == (3, 3)


def test_an_extension_and_a_move_together(db: Database) -> None:
    room = make_class(db, students=2)
    extended, other = room.students
    room.solve(extended, "add-tensors", 150, ACCEPTED)
    room.solve(other, "add-tensors", 150, ACCEPTED)
    _edit(db, room, release=-60, due=100)
    assert _in_step(db) and _marks(db, room) == (0, 0)
    with db.transaction() as session:
        assignment = session.get(Assignment, room.assignment_id)
        assert assignment is not None
        assignments.set_extension(
            session, assignment, extended.id, due_at=(room.start + timedelta(minutes=200)).isoformat()
        )
    assert _in_step(db) and _marks(db, room) == (1, 1)
    _edit(db, room, release=-60, due=120)  # the extended student keeps their own due time
    assert _in_step(db) and _marks(db, room) == (1, 1)


def test_problems_changed_keep_the_other_problems_rows(db: Database) -> None:
    room = make_class(db, students=2, slugs=("add-tensors",))
    a, b = room.students
    room.solve(a, "add-tensors", 10, wrong(("batch_of_one", "shape")))
    room.solve(b, "scale-rows", 10, ACCEPTED)  # not the assignment's problem yet
    assert _in_step(db)
    _edit(db, room, release=-60, due=60 * 24, slugs=["add-tensors", "scale-rows"])
    assert _in_step(db)
    report = _report(db, room)
    assert [(p.slug, p.attempted, p.solved) for p in report.problems] == [
        ("add-tensors", 1, 0),
        ("scale-rows", 1, 1),
    ]
    _edit(db, room, release=-60, due=60 * 24, slugs=["scale-rows"])
    assert _in_step(db)
    assert [(p.slug, p.attempted) for p in _report(db, room).problems] == [("scale-rows", 1)]


def test_random_moves_with_a_student_who_left_and_came_back(db: Database) -> None:
    """Any sequence of dates (release and due moving either way, together or apart) against work
    spread over several enrolment periods: the state equals a rebuild after each."""
    room = make_class(db, students=3)
    _steady, returner, extended = room.students
    rng = random.Random(20261206)
    for who in room.students:
        for minute in sorted(rng.sample(range(-100, 400), 8)):
            judged = (
                ACCEPTED if rng.random() < 0.3 else wrong(("batch_of_one", rng.choice(["shape", "values"])))
            )
            room.solve(who, rng.choice(["add-tensors", "scale-rows"]), minute, judged)
    with db.transaction() as session:
        course = room.course(session)
        enrolment.leave(session, course, session.merge(returner), room.start + timedelta(minutes=100))
        enrolment.join(
            session, session.merge(returner), course.join_code, room.start + timedelta(minutes=200)
        )
        assignments.set_extension(
            session,
            room.assignment(session),
            extended.id,
            due_at=(room.start + timedelta(minutes=300)).isoformat(),
        )
    assert _in_step(db)
    for _ in range(8):
        release = rng.randrange(-120, 250)
        _edit(db, room, release=release, due=release + rng.randrange(1, 400))
        assert _in_step(db)
