"""The maintained analytics state: written in each verdict's transaction, equal to a rebuild from
the submissions table at every step, and only ever counting work the course sees."""

from __future__ import annotations

from datetime import timedelta

from app.analytics import rules, service, state
from app.analytics.models import AnalyticsProgress
from app.courses import assignments, enrolment
from app.kit.db import Database, utcnow
from app.submissions import verdict_listeners
from app.submissions.judging import reopen_for_rejudge
from tests.app.analytics.classroom import ACCEPTED, make_class, result, wrong


def _in_step(db: Database) -> bool:
    with db.transaction() as session:
        return state.compare(session).in_step


def _report(db: Database, room):  # type: ignore[no-untyped-def]
    with db.transaction() as session:
        return service.assignment_analytics(session, room.course(session), room.assignment(session))


def test_the_app_installs_the_listener(db: Database) -> None:
    assert "course-analytics" in verdict_listeners.installed()


def test_verdicts_keep_the_state_equal_to_a_rebuild(db: Database) -> None:
    room = make_class(db)
    a, b, c = room.students
    # a: two failures then a solve; b: fails the same hidden case and a rule; c: only runs.
    room.solve(a, "add-tensors", 10, wrong(("batch_of_one", "shape")))
    assert _in_step(db)
    room.solve(a, "add-tensors", 20, wrong(("batch_of_one", "values"), ("broadcast", "dtype")))
    room.solve(a, "add-tensors", 40, ACCEPTED)
    room.solve(b, "add-tensors", 15, wrong(("batch_of_one", "shape")))
    room.solve(
        b,
        "add-tensors",
        16,
        wrong(("broadcast", "rule")),
    )
    room.solve(
        b,
        "add-tensors",
        17,
        wrong(("broadcast", "rule")),
    )
    room.solve(c, "add-tensors", 5, ACCEPTED, mode="run")
    assert _in_step(db)

    report = _report(db, room)
    add = report.problems[0]
    assert (add.slug, add.attempted, add.solved) == ("add-tensors", 3, 1)
    assert add.median_attempts_to_solve == 3 and add.median_minutes_to_solve == 30.0
    assert add.top_case is not None and add.top_case.key == "hidden:batch_of_one"
    assert (add.top_case.students, add.top_case.attempts) == (2, 3)
    assert report.problems[1].attempted == 0
    assert {s.user_id for s in report.not_started} == set()  # c ran: started
    day = report.kinds_over_time[-1].counts if report.kinds_over_time else {}
    assert sum(d.counts["shape"] for d in report.kinds_over_time) == 2
    assert sum(d.counts["dtype"] for d in report.kinds_over_time) == 1
    assert sum(d.counts["values"] for d in report.kinds_over_time) == 1
    assert set(day) == set(rules.KINDS)


def test_out_of_order_verdicts_and_rejudging_stay_in_step(db: Database) -> None:
    room = make_class(db, students=1)
    (a,) = room.students
    first = room.submit(a, "scale-rows", 1)
    second = room.submit(a, "scale-rows", 2)
    third = room.submit(a, "scale-rows", 3)
    room.record(third, ACCEPTED)  # judged first, made last
    room.record(first, ACCEPTED)  # the earliest solve arrives later
    room.record(second, wrong(("broadcast", "values")))
    assert _in_step(db)
    scale = _report(db, room).problems[1]
    assert scale.solved == 1 and scale.median_attempts_to_solve == 1
    # Re-judging takes the verdict back at once, and the new one counts.
    assert reopen_for_rejudge(db, first) == "accepted"
    assert _in_step(db)
    assert _report(db, room).problems[1].median_attempts_to_solve == 2  # second and third
    room.record(first, wrong(("broadcast", "values")))
    assert _in_step(db)
    assert _report(db, room).problems[1].median_attempts_to_solve == 3


def test_stuck_is_many_failures_without_progress(db: Database) -> None:
    room = make_class(db, students=2)
    stuck, improving = room.students
    for minute in range(5):
        room.solve(stuck, "add-tensors", minute, wrong(("batch_of_one", "values"), ("broadcast", "values")))
    failing_two = wrong(("batch_of_one", "values"), ("broadcast", "values"))
    failing_one = wrong(("broadcast", "values"))
    for minute, judged in enumerate([failing_two, failing_two, failing_two, failing_two, failing_one]):
        room.solve(improving, "add-tensors", minute, judged)  # the last Submit passes one case more
    report = _report(db, room)
    assert [s.user_id for s in report.stuck] == [stuck.id]
    assert report.stuck[0].failed == 5 and report.stuck[0].since_best == 4
    assert report.problems[0].stuck == 1
    assert _in_step(db)


def test_only_the_courses_work_counts(db: Database) -> None:
    room = make_class(db, students=3)
    before, leaver, extended = room.students
    # Practice before the course's window (before joining) never counts.
    room.solve(before, "add-tensors", -60 * 6, wrong(("batch_of_one", "shape")))
    # Work after leaving never counts.
    with db.transaction() as session:
        enrolment.leave(
            session, room.course(session), session.merge(leaver), room.start + timedelta(minutes=30)
        )
    room.solve(leaver, "add-tensors", 10, wrong(("batch_of_one", "shape")))
    room.solve(leaver, "add-tensors", 60, ACCEPTED)
    # An extension's later due date makes work after the assignment's due time count.
    room.solve(extended, "add-tensors", 60 * 24 * 3 + 30, ACCEPTED)  # after the due time
    assert _in_step(db)
    report = _report(db, room)
    assert report.students == 2  # the leaver is no longer active
    assert report.problems[0].attempted == 0  # progress is the active students'
    # Failures are the course's work: the leaver's Submit while enrolled counts, the one after not.
    assert sum(d.counts["shape"] for d in report.kinds_over_time) == 1
    assert report.problems[0].top_case is not None and report.problems[0].top_case.attempts == 1
    assert {s.user_id for s in report.not_started} == {before.id, extended.id}

    with db.transaction() as session:
        assignment = room.assignment(session)
        assignments.set_extension(
            session, assignment, extended.id, due_at=(utcnow() + timedelta(days=5)).isoformat()
        )
    assert _in_step(db)  # the extension recomputed the student in its own transaction
    report = _report(db, room)
    assert report.problems[0].solved == 1
    assert {s.user_id for s in report.not_started} == {before.id}


def test_rebuild_repairs_a_damaged_state(db: Database) -> None:
    room = make_class(db, students=2)
    a, b = room.students
    room.solve(a, "add-tensors", 5, wrong(("broadcast", "rule"), rule="no-loops"))
    room.solve(b, "scale-rows", 6, ACCEPTED)
    with db.transaction() as session:
        session.execute(AnalyticsProgress.__table__.update().values(failed=99))  # type: ignore[attr-defined]
    with db.transaction() as session:
        before = state.rebuild(session)
    assert before.differences > 0
    assert _in_step(db)
    report = _report(db, room)
    assert report.problems[0].top_rule is not None and report.problems[0].top_rule.key == "rule:no-loops"


def test_internal_errors_and_compile_errors(db: Database) -> None:
    room = make_class(db, students=1)
    (a,) = room.students
    room.solve(a, "add-tensors", 1, result("internal_error", []))
    assert _report(db, room).problems[0].attempted == 0  # the platform's failure is not the student's
    room.solve(a, "add-tensors", 2, result("compile_error", []))
    report = _report(db, room)
    assert report.problems[0].attempted == 1
    assert sum(d.counts["exception"] for d in report.kinds_over_time) == 1
    assert _in_step(db)


def test_medians_are_the_middle_or_the_mean_of_the_middle_two(db: Database) -> None:
    room = make_class(db, students=4)
    plans = [1, 4, 2, 7]  # Submits until accepted: medians 1 | 1,4 | 1,2,4 | 1,2,4,7
    for who, attempts in zip(room.students, plans, strict=True):
        for i in range(attempts - 1):
            room.solve(who, "add-tensors", i, wrong(("broadcast", "values")))
        room.solve(who, "add-tensors", 10 * attempts, ACCEPTED)
    report = _report(db, room)
    assert report.problems[0].median_attempts_to_solve == 3.0  # (2 + 4) / 2
    # minutes from the first Submit: 0 (solved at once), 40, 20, 70 -> (20 + 40) / 2
    assert report.problems[0].median_minutes_to_solve == 30.0
    with db.transaction() as session:
        one = service.problem_analytics(
            session, room.course(session), room.assignment(session), "add-tensors"
        )
    assert one.problem.median_attempts_to_solve == 3.0 and one.problem.minutes_to_solve == [
        0.0,
        20.0,
        40.0,
        70.0,
    ]


def _edit(db: Database, room, slugs: list[str], due_minutes: float | None = None) -> None:  # type: ignore[no-untyped-def]
    """The instructor's edit of the assignment (``assignments.update_assignment``)."""
    with db.transaction() as session:
        assignment, course = room.assignment(session), room.course(session)
        due = assignment.due_at if due_minutes is None else room.start + timedelta(minutes=due_minutes)
        checked = assignments.check_fields(
            session, course, title=assignment.title, problem_slugs=slugs,
            release_at=assignment.release_at.isoformat(), due_at=due.isoformat(), late=[],
        )  # fmt: skip
        assignments.update_assignment(session, assignment, checked)


def test_a_problem_added_or_dates_moved_are_applied_by_the_change(db: Database) -> None:
    room = make_class(db, students=2, slugs=("add-tensors",))
    a, b = room.students
    room.solve(a, "scale-rows", 5, ACCEPTED)  # not the assignment's problem (yet)
    room.solve(b, "add-tensors", 6, ACCEPTED)
    assert [p.slug for p in _report(db, room).problems] == ["add-tensors"]
    _edit(db, room, ["add-tensors", "scale-rows"])  # the instructor adds scale-rows
    assert _in_step(db)  # in the edit's transaction, not on the next read
    report = _report(db, room)
    assert [(p.slug, p.solved) for p in report.problems] == [("add-tensors", 1), ("scale-rows", 1)]
    _edit(db, room, ["add-tensors", "scale-rows"], due_minutes=1)  # due before both solves
    assert _in_step(db)
    report = _report(db, room)
    assert [(p.attempted, p.solved) for p in report.problems] == [(0, 0), (0, 0)]
    _edit(db, room, ["scale-rows"], due_minutes=60)  # add-tensors dropped, the solves count again
    assert _in_step(db)
    assert [(p.slug, p.solved) for p in _report(db, room).problems] == [("scale-rows", 1)]


def test_joining_leaving_and_removal_are_applied_by_the_change(db: Database) -> None:
    room = make_class(db, students=2, slugs=("add-tensors",))
    a, b = room.students
    room.solve(a, "add-tensors", 5, wrong(("batch_of_one", "shape")))
    room.solve(b, "add-tensors", 6, ACCEPTED)
    with db.transaction() as session:  # b is removed: their work stays the course's
        enrolment.set_student_status(
            session, room.course(session), b.id, "removed", room.start + timedelta(minutes=7)
        )
    assert _in_step(db)
    with db.transaction() as session:  # a left before their failure: it is no longer the course's
        enrolment.leave(session, room.course(session), session.merge(a), room.start + timedelta(minutes=1))
    assert _in_step(db)
    report = _report(db, room)
    assert report.students == 0 and report.problems[0].top_case is None
    with db.transaction() as session:  # a rejoins: work from now on counts
        enrolment.join(
            session, session.merge(a), room.course(session).join_code, room.start + timedelta(minutes=8)
        )
    room.solve(a, "add-tensors", 9, wrong(("batch_of_one", "shape")))
    assert _in_step(db)
    report = _report(db, room)
    assert report.students == 1 and report.problems[0].attempted == 1
