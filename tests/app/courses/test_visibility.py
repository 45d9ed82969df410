"""The one rule of what instructors see (app.courses.visibility): its Python and SQL forms agree
on every submission, at every boundary (release, close, joining, leaving), on both databases."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from sqlalchemy import select

from app.courses import assignments, enrolment, repository, visibility
from app.courses.models import EnrolmentPeriod
from app.kit.db import Database
from app.submissions.models import Submission
from tests.app.courses.helpers import stored_submit, user

RELEASE = datetime(2026, 3, 1, 9, tzinfo=UTC)
DUE = RELEASE + timedelta(days=7)
CLOSE = DUE + timedelta(days=2)
SECOND = timedelta(seconds=1)


def test_python_and_sql_forms_agree_at_every_boundary(db: Database) -> None:
    joined = RELEASE + timedelta(days=1)
    left = RELEASE + timedelta(days=3)
    back = RELEASE + timedelta(days=5)
    with db.transaction() as session:
        teacher, student, other = user(session, "instructor"), user(session), user(session)
        course = enrolment.create_course(session, teacher, "Rule")
        a = assignments.create_assignment(
            session,
            course,
            title="A",
            problem_slugs=["add-tensors"],
            release_at=RELEASE.isoformat(),
            due_at=DUE.isoformat(),
            late=[{"until": CLOSE.isoformat(), "credit": 50}],
        )
        enrolment.join(session, student, course.join_code, joined)
        enrolment.join(session, other, course.join_code, RELEASE)
        enrolment.leave(session, course, student, left)
        enrolment.join(session, student, course.join_code, back)
        expected: dict[int, bool] = {}
        for at, shown in (
            (RELEASE - SECOND, False),  # before the release (and before joining)
            (joined - SECOND, False),  # released, not yet joined
            (joined, True),
            (left - SECOND, True),
            (left, False),  # the moment they left is outside
            (back - SECOND, False),
            (back, True),
            (DUE, True),
            (CLOSE, True),  # the end of the last window is inside
            (CLOSE + SECOND, False),
        ):
            expected[stored_submit(session, student, "add-tensors", at).id] = shown
        expected[stored_submit(session, student, "sum-of-squares", joined + SECOND).id] = False  # off course
        theirs = stored_submit(session, other, "add-tensors", joined + SECOND).id  # another student's
        listed = repository.assignments(session, course.id)
        work = visibility.course_work(session, listed, [student.id, other.id])
        mine = session.scalars(select(Submission).where(Submission.id.in_(list(expected)))).all()
        assert {s.id: work.includes(s) for s in mine} == expected
        in_sql = set(session.scalars(select(Submission.id).where(work.where(student.id))))
        assert in_sql == {i for i, shown in expected.items() if shown}  # never another student's
        assert set(session.scalars(select(Submission.id).where(work.where(other.id)))) == {theirs}
        alone = visibility.course_work(session, listed, [student.id])  # only the students asked for
        assert set(session.scalars(select(Submission.id).where(alone.where(other.id)))) == set()
        assert list(work.problems) == [a.id]


def test_leaving_ends_every_open_period_even_two_a_race_opened(db: Database) -> None:
    joined, left = RELEASE + timedelta(days=1), RELEASE + timedelta(days=2)
    with db.transaction() as session:
        teacher, student = user(session, "instructor"), user(session)
        course = enrolment.create_course(session, teacher, "Race")
        assignments.create_assignment(
            session,
            course,
            title="A",
            problem_slugs=["add-tensors"],
            release_at=RELEASE.isoformat(),
            due_at=DUE.isoformat(),
        )
        enrolment.join(session, student, course.join_code, joined)
        # a double-clicked Join that both requests got through: a second open period
        repository.add(session, EnrolmentPeriod(course_id=course.id, user_id=student.id, joined_at=joined))
        enrolment.leave(session, course, student, left)
        assert repository.open_period(session, course.id, student.id) is None
        after = stored_submit(session, student, "add-tensors", left + SECOND)
        listed = repository.assignments(session, course.id)
        work = visibility.course_work(session, listed, [student.id])
        assert not work.includes(after)
        assert list(session.scalars(select(Submission.id).where(work.where(student.id)))) == []
