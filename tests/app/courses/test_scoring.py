"""Assignments and scores: release hides, on-time / late / after-deadline credit, extensions."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from app.courses import assignments, enrolment, regrades, scoring
from app.courses.models import Assignment, Course, Regrade
from app.kit.db import Database, utcnow
from app.kit.errors import Conflict, InvalidInput, NotFound
from app.problems import service as problems
from app.submissions.models import Submission
from tests.app.courses.helpers import problem, stored_submit, user

DUE = datetime(2026, 3, 1, 23, 59, tzinfo=UTC)


def _assignment(session, course: Course, **kw) -> Assignment:  # type: ignore[no-untyped-def]
    args = {
        "title": "Week 1",
        "problem_slugs": ["add-tensors", "sum-of-squares"],
        "release_at": (DUE - timedelta(days=7)).isoformat(),
        "due_at": DUE.isoformat(),
        "late": [
            {"until": (DUE + timedelta(days=1)).isoformat(), "credit": 80},
            {"until": (DUE + timedelta(days=3)).isoformat(), "credit": 50},
        ],
    } | kw
    return assignments.create_assignment(session, course, **args)


def test_release_hides_and_shows(db: Database) -> None:
    now = utcnow()
    with db.transaction() as session:
        teacher, student = user(session, "instructor"), user(session)
        course = enrolment.create_course(session, teacher, "C")
        enrolment.join(session, student, course.join_code, now)
        later = _assignment(
            session,
            course,
            release_at=(now + timedelta(hours=1)).isoformat(),
            due_at=(now + timedelta(days=2)).isoformat(),
            late=[],
        )
        assert assignments.visible_assignments(session, course, student, now) == []
        with pytest.raises(NotFound):
            assignments.assignment_for(session, course, later.id, student, now)
        assert [a.id for a in assignments.visible_assignments(session, course, teacher, now)] == [later.id]
        after = now + timedelta(hours=2)
        assert [a.id for a in assignments.visible_assignments(session, course, student, after)] == [later.id]
        # an extension may release early for one student
        assignments.set_extension(
            session, later, student.id, release_at=(now - timedelta(hours=1)).isoformat()
        )
        assert assignments.assignment_for(session, course, later.id, student, now).id == later.id


def test_times_need_offsets_and_order(db: Database) -> None:
    with db.transaction() as session:
        course = enrolment.create_course(session, user(session, "instructor"), "C")
        with pytest.raises(InvalidInput, match="offset"):
            _assignment(session, course, due_at="2026-03-01T23:59:00")
        with pytest.raises(InvalidInput, match="after the due"):
            _assignment(
                session, course, late=[{"until": (DUE - timedelta(hours=1)).isoformat(), "credit": 50}]
            )
        with pytest.raises(InvalidInput, match="no published problem"):
            _assignment(session, course, problem_slugs=["nope"])


def test_on_time_late_after_deadline_and_extension(db: Database) -> None:
    with db.transaction() as session:
        teacher = user(session, "instructor")
        on_time, late, later, too_late, extended, practising = (user(session) for _ in range(6))
        course = enrolment.create_course(session, teacher, "C")
        for s in (on_time, late, later, too_late, extended, practising):
            enrolment.join(session, s, course.join_code, DUE - timedelta(days=30))
        a = _assignment(session, course)
        stored_submit(session, on_time, "add-tensors", DUE - timedelta(hours=1))
        stored_submit(session, on_time, "sum-of-squares", DUE - timedelta(hours=1), verdict="wrong_answer")
        stored_submit(session, late, "add-tensors", DUE + timedelta(hours=5))
        stored_submit(session, later, "add-tensors", DUE + timedelta(days=2))
        stored_submit(session, later, "add-tensors", DUE + timedelta(days=2, hours=1), mode="run")
        stored_submit(session, too_late, "add-tensors", DUE + timedelta(days=4))
        # the extension moves the due time: a submission 2 days late is on time for them
        assignments.set_extension(
            session, a, extended.id, due_at=(DUE + timedelta(days=2, hours=2)).isoformat()
        )
        stored_submit(session, extended, "add-tensors", DUE + timedelta(days=2))
        stored_submit(session, extended, "sum-of-squares", DUE + timedelta(days=2, hours=3))
        # practice before release is not counted, and never lowers a later on-time accept
        stored_submit(session, practising, "add-tensors", DUE - timedelta(days=20))
        stored_submit(session, practising, "sum-of-squares", DUE - timedelta(days=20))
        stored_submit(session, practising, "sum-of-squares", DUE - timedelta(days=1))

        ids = [on_time.id, late.id, later.id, too_late.id, extended.id, practising.id]
        scores = scoring.compute(session, [a], ids)
        add_id, sum_id = problem(session, "add-tensors").id, problem(session, "sum-of-squares").id
        got = {
            uid: (scores[(uid, a.id)].problems[add_id], scores[(uid, a.id)].problems[sum_id]) for uid in ids
        }
        assert got == {
            on_time.id: (100.0, 0.0),
            late.id: (80.0, 0.0),
            later.id: (50.0, 0.0),
            too_late.id: (0.0, 0.0),
            extended.id: (100.0, 50.0),  # 1 h after their extended due: the 3-day window still runs
            practising.id: (0.0, 100.0),
        }
        assert scores[(late.id, a.id)].percent == 40.0
        assert scoring.total([40.0, 100.0]) == 70.0


def test_course_access_opens_premium_problems_to_enrolled_students(db: Database) -> None:
    now = utcnow()
    with db.transaction() as session:
        teacher, student, outsider = user(session, "instructor"), user(session), user(session)
        course = enrolment.create_course(session, teacher, "C", ends_at=now + timedelta(days=30))
        enrolment.join(session, student, course.join_code, now)
        premium = problem(session, "scale-rows")
        assert premium.premium and not problems.can_work_on(premium, student, now)
        _assignment(
            session,
            course,
            problem_slugs=["scale-rows"],
            release_at=(now + timedelta(hours=1)).isoformat(),
            due_at=(now + timedelta(days=1)).isoformat(),
            late=[],
            after_last="closed",
        )
        assert not problems.can_work_on(premium, student, now)  # not released yet
        soon = now + timedelta(hours=2)
        assert problems.can_work_on(premium, student, soon)
        assert not problems.can_work_on(premium, outsider, soon)
        assert not problems.can_work_on(premium, student, now + timedelta(days=2))  # closed after due
        enrolment.set_student_status(session, course, student.id, "removed", soon)
        assert not problems.can_work_on(premium, student, soon)


def test_applied_regrade_verdicts_and_a_failed_rejudge(db: Database) -> None:
    """An applied run's copy verdict replaces the original's; a copy the platform failed blocks the
    run until it is re-judged (it never keeps the old verdict silently)."""
    with db.transaction() as session:
        teacher, flipped, failed = user(session, "instructor"), user(session), user(session)
        course = enrolment.create_course(session, teacher, "C")
        for s in (flipped, failed):
            enrolment.join(session, s, course.join_code, DUE - timedelta(days=30))
        a = _assignment(session, course, problem_slugs=["add-tensors"])
        judge = regrades.judge_account(session)
        copies = {}
        for who, copy_verdict in ((flipped, "wrong_answer"), (failed, "internal_error")):
            original = stored_submit(session, who, "add-tensors", DUE - timedelta(hours=1))
            copy = stored_submit(session, judge, "add-tensors", DUE, verdict=copy_verdict)
            copies[str(original.id)] = copy.id
            failed_original = original
        p = problem(session, "add-tensors")
        assert p.current_version_id is not None
        run = Regrade(
            assignment_id=a.id,
            problem_id=p.id,
            version_id=p.current_version_id,
            copies=copies,
            status="judging",
        )
        session.add(run)
        session.flush()
        before = scoring.compute(session, [a], [flipped.id, failed.id])
        assert [before[(u.id, a.id)].percent for u in (flipped, failed)] == [100.0, 100.0]  # not applied
        changes = regrades.dry_run(session, course, a, run)
        assert [(c.user_id, c.old, c.new) for c in changes] == [(flipped.id, 100.0, 0.0)]
        assert regrades.progress(session, run).failed == 1
        with pytest.raises(Conflict, match="need review"):
            regrades.apply(session, course, a, run, teacher, never_lower=False)
        assert run.status == "judging"  # nothing applied
        rejudged = session.get(Submission, copies[str(failed_original.id)])
        assert rejudged is not None
        rejudged.verdict = "accepted"  # re-judged, this time without the platform failing
        session.flush()
        regrades.apply(session, course, a, run, teacher, never_lower=False)
        after = scoring.compute(session, [a], [flipped.id, failed.id])
        assert [after[(u.id, a.id)].percent for u in (flipped, failed)] == [0.0, 100.0]
