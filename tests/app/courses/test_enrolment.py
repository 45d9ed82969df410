"""Courses and enrolment through the service: codes, rosters, removal, blocking, visibility."""

from __future__ import annotations

from datetime import timedelta

import pytest

from app.courses import enrolment, invitations
from app.kit.db import Database, utcnow
from app.kit.errors import Forbidden, InvalidInput, NotFound
from tests.app.courses.helpers import user


def test_students_cannot_create_courses(db: Database) -> None:
    with db.transaction() as session:
        student = user(session)
        with pytest.raises(Forbidden):
            enrolment.create_course(session, student, "Deep learning")


def test_join_by_code_and_visibility(db: Database) -> None:
    now = utcnow()
    with db.transaction() as session:
        teacher, student, outsider = user(session, "instructor"), user(session), user(session)
        course = enrolment.create_course(session, teacher, "Deep learning", term="Spring")
        with pytest.raises(NotFound):
            enrolment.course_for_member(session, course.id, student)
        joined = enrolment.join(session, student, course.join_code.lower(), now)
        assert joined.id == course.id
        assert enrolment.course_for_member(session, course.id, student).id == course.id
        with pytest.raises(NotFound):  # students never see instructor things
            enrolment.course_for_instructor(session, course.id, student)
        with pytest.raises(NotFound):
            enrolment.course_for_member(session, course.id, outsider)
        assert [c.id for c, _ in enrolment.my_courses(session, student)] == [course.id]
        assert enrolment.my_courses(session, outsider) == []


def test_rotated_and_expired_codes_stop_working(db: Database) -> None:
    now = utcnow()
    with db.transaction() as session:
        teacher, a, b = user(session, "instructor"), user(session), user(session)
        course = enrolment.create_course(session, teacher, "Vision")
        old = course.join_code
        enrolment.rotate_join_code(session, course, expires_at=now + timedelta(hours=1))
        with pytest.raises(NotFound):
            enrolment.join(session, a, old, now)
        enrolment.join(session, a, course.join_code, now)
        with pytest.raises(InvalidInput, match="expired"):
            enrolment.join(session, b, course.join_code, now + timedelta(hours=2))


def test_removed_may_rejoin_blocked_may_not(db: Database) -> None:
    now = utcnow()
    with db.transaction() as session:
        teacher, a, b = user(session, "instructor"), user(session), user(session)
        course = enrolment.create_course(session, teacher, "NLP")
        for s in (a, b):
            enrolment.join(session, s, course.join_code, now)
        enrolment.set_student_status(session, course, a.id, "removed", now)
        enrolment.set_student_status(session, course, b.id, "blocked", now)
        with pytest.raises(NotFound):
            enrolment.course_for_member(session, course.id, a)
        enrolment.join(session, a, course.join_code, now)
        assert enrolment.is_student(session, course, a)
        with pytest.raises(Forbidden):
            enrolment.join(session, b, course.join_code, now)
        assert not enrolment.is_student(session, course, b)


def test_roster_invites_known_and_unknown_and_enrols_nobody(db: Database) -> None:
    now = utcnow()
    with db.transaction() as session:
        teacher, known = user(session, "instructor"), user(session)
        course = enrolment.create_course(session, teacher, "RL")
        roster = f"\ufeffemail,section\n{known.email.upper()},A\nnew-person@example.com,B\nnot-an-email,A\n"
        report = invitations.import_roster(session, course, roster)
        assert [e for e, _ in report.invited] == [known.email, "new-person@example.com"]
        assert report.skipped and report.skipped[0][0] == 4
        assert enrolment.repository.active_students(session, course.id) == []
        codes = dict(report.invited)
        again = invitations.import_roster(session, course, roster)  # idempotent: the same codes
        assert again.invited == report.invited
        assert [p.course.id for p in invitations.my_invitations(session, known)] == [course.id]
        assert enrolment.join(session, known, codes[known.email], now).id == course.id
        newcomer = user(session, email="new-person@example.com")
        assert enrolment.join(session, newcomer, codes["new-person@example.com"], now).id == course.id
        members = {u.email: m.section for m, u in enrolment.repository.active_students(session, course.id)}
        assert members == {known.email: "A", "new-person@example.com": "B"}


def test_co_instructor_sees_instructor_views(db: Database) -> None:
    with db.transaction() as session:
        owner, co, student = user(session, "instructor"), user(session, "instructor"), user(session)
        course = enrolment.create_course(session, owner, "Graphs")
        with pytest.raises(InvalidInput):
            enrolment.add_instructor(session, course, owner, student.email)
        enrolment.add_instructor(session, course, owner, co.email)
        assert enrolment.course_for_instructor(session, course.id, co).id == course.id
