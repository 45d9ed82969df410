"""The analytics pages and API over HTTP: what an instructor sees, and that nobody else sees it.

The attacks, by class: the course's own students (page and API, with a token of every scope),
outsiders, another course's instructor, an admin-less instructor token without ``teach``, nobody
signed in, another course's assignment id under this course, a problem that is not the
assignment's, and a slug that tries to leave the route.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from app.accounts import tokens
from app.accounts.service import sign_up
from app.kit.db import Database, utcnow
from tests.app.analytics.classroom import ACCEPTED, PASSWORD, Classroom, make_class, wrong
from tests.app.conftest import Browser


def _token(db: Database, user_id: int, scopes: list[str]) -> str:
    from app.accounts.models import User

    with db.transaction() as session:
        user = session.get(User, user_id)
        assert user is not None
        return tokens.create_token(session, user, "t", utcnow(), scopes=scopes)[1]


def _signed_in(new_browser: Callable[[], Browser], email: str) -> Browser:
    b = new_browser()
    assert b.login(email).status_code == 303
    return b


def _urls(room: Classroom, course_id: int | None = None, assignment_id: int | None = None) -> list[str]:
    c, a = course_id or room.course_id, assignment_id or room.assignment_id
    return [
        f"/courses/{c}/assignments/{a}/analytics",
        f"/courses/{c}/assignments/{a}/analytics/add-tensors",
        f"/api/v1/courses/{c}/assignments/{a}/analytics",
        f"/api/v1/courses/{c}/assignments/{a}/analytics/add-tensors",
    ]


@pytest.fixture
def room(db: Database) -> Classroom:
    room = make_class(db, students=3)
    a, b, _c = room.students
    room.solve(a, "add-tensors", 5, wrong(("batch_of_one", "shape")))
    room.solve(a, "add-tensors", 9, ACCEPTED)
    for minute in range(5):
        room.solve(b, "add-tensors", 10 + minute, wrong(("broadcast", "rule"), rule="no-loops"))
    return room


def test_the_instructor_reads_the_pages_and_the_api(
    room: Classroom, new_browser: Callable[[], Browser], db: Database
) -> None:
    teacher = _signed_in(new_browser, room.teacher.email)
    _a, b, c = room.students
    assignment = teacher.get(f"/courses/{room.course_id}/assignments/{room.assignment_id}")
    assert 'id="analytics-link"' in assignment.text
    page = teacher.get(_urls(room)[0])
    assert page.status_code == 200
    assert 'role="img"' in page.text and not re.findall(
        r"<script(?![^>]*\bsrc=)", page.text
    )  # no inline script
    assert 'data-problem="add-tensors"' in page.text and 'id="kinds-table"' in page.text
    assert f'data-stuck="{b.id}"' in page.text and f'data-idle="{c.id}"' in page.text
    problem = teacher.get(_urls(room)[1])
    assert problem.status_code == 200
    assert 'data-case="hidden:broadcast"' in problem.text and 'data-rule="rule:no-loops"' in problem.text

    body = teacher.get(_urls(room)[2]).json()
    assert body["students"] == 3 and body["problems"][0]["attempted"] == 2
    assert body["problems"][0]["solved"] == 1 and body["problems"][0]["median_attempts_to_solve"] == 2
    assert [s["user_id"] for s in body["stuck"]] == [b.id]
    assert [s["user_id"] for s in body["not_started"]] == [c.id]
    one = teacher.get(_urls(room)[3]).json()
    assert one["problem"]["rules"][0] == {
        "key": "rule:no-loops",
        "label": "rule no-loops",
        "students": 1,
        "attempts": 5,
    }
    token = _token(db, room.teacher.id, ["teach"])
    with_token = TestClient(teacher.client.app, follow_redirects=False).get(
        _urls(room)[2], headers={"Authorization": f"Bearer {token}"}
    )
    assert with_token.status_code == 200 and with_token.json()["students"] == 3


def test_nobody_else_reads_them(
    room: Classroom, new_browser: Callable[[], Browser], db: Database, app: FastAPI
) -> None:
    other = make_class(db, students=1)
    students = [_signed_in(new_browser, s.email) for s in room.students]
    other_teacher = _signed_in(new_browser, other.teacher.email)
    outsider = new_browser()
    assert outsider.signup().status_code == 303
    for url in _urls(room):
        for intruder in [*students, outsider, other_teacher]:
            assert intruder.get(url).status_code == 404, (url, intruder.email)
        assert new_browser().get(url).status_code in (303, 401), url
        for scopes in (["read"], ["read", "submit"]):  # a student's tokens, every scope they may hold
            token = _token(db, room.students[0].id, scopes)
            got = TestClient(app, follow_redirects=False).get(
                url, headers={"Authorization": f"Bearer {token}"}
            )
            # a page signs in by session only (303 to log in); the API: 403 (no scope) or 404
            assert got.status_code in ((303,) if url.startswith("/courses") else (403, 404)), (
                url,
                scopes,
                got.status_code,
            )
    # An instructor-role account enrolled as a *student* holds ``teach``, and is still a student here.
    with db.transaction() as session:
        from app.courses import enrolment
        from app.courses.models import Course

        course = session.get(Course, room.course_id)
        assert course is not None
        staff_student = sign_up(
            session, f"ta-{room.course_id}-{other.course_id}@example.com", PASSWORD, role="instructor"
        )
        enrolment.join(session, staff_student, course.join_code, utcnow())
        staff_student_id = staff_student.id
    token = _token(db, staff_student_id, ["read", "submit", "teach"])
    for url in _urls(room)[2:]:
        got = TestClient(app, follow_redirects=False).get(url, headers={"Authorization": f"Bearer {token}"})
        assert got.status_code == 404, (url, got.status_code)
    # The instructor's own token without ``teach`` is refused with its reason.
    token = _token(db, room.teacher.id, ["read"])
    refused = TestClient(app, follow_redirects=False).get(
        _urls(room)[2], headers={"Authorization": f"Bearer {token}"}
    )
    assert refused.status_code == 403 and refused.json()["error"] == "insufficient_scope"
    # Another course's assignment reached through this course, and this one through the other.
    teacher = _signed_in(new_browser, room.teacher.email)
    for url in _urls(room, assignment_id=other.assignment_id) + _urls(room, course_id=other.course_id):
        assert teacher.get(url).status_code == 404, url
    # A problem that is not the assignment's, and slugs that try to leave the route.
    base = f"/courses/{room.course_id}/assignments/{room.assignment_id}/analytics"
    assert teacher.get(f"{base}/sum-of-squares").status_code == 404
    assert teacher.get(f"/api/v1{base}/sum-of-squares").status_code == 404
    for slug in ("..%2F..%2Fgradebook", "ADD-TENSORS", "a" * 81, "%3Cscript%3E"):
        assert teacher.get(f"{base}/{slug}").status_code in (404, 422), slug


def test_a_co_instructor_and_an_admin(
    room: Classroom, new_browser: Callable[[], Browser], db: Database
) -> None:
    with db.transaction() as session:
        admin = sign_up(
            session, "admin-analytics-" + str(room.course_id) + "@example.com", PASSWORD, role="admin"
        )
        admin_email = admin.email
    got: Any = _signed_in(new_browser, admin_email).get(_urls(room)[0])
    assert got.status_code in (
        200,
        404,
    )  # whatever the courses' rule says for admins, the same as the gradebook
    gradebook = _signed_in(new_browser, admin_email).get(f"/courses/{room.course_id}/gradebook")
    assert got.status_code == gradebook.status_code


def test_give_ups_of_the_course_s_students_are_counted_per_problem(
    room: Classroom, new_browser: Callable[[], Browser], db: Database
) -> None:
    from app.accounts.models import User
    from app.solutions import service as solutions

    _a, _b, c = room.students
    with db.transaction() as session:
        outsider_id = sign_up(session, "outsider-gives-up@example.com", PASSWORD).id
    with db.transaction() as session:
        for user_id in (c.id, outsider_id):
            user = session.get(User, user_id)
            assert user is not None
            solutions.give_up(session, user, "add-tensors", utcnow())
    teacher = _signed_in(new_browser, room.teacher.email)
    body = teacher.get(_urls(room)[2]).json()
    assert {p["slug"]: p["gave_up"] for p in body["problems"]} == {"add-tensors": 1, "scale-rows": 0}
    assert teacher.get(_urls(room)[3]).json()["problem"]["gave_up"] == 1
    assert "gave up and read the solutions 1" in teacher.get(_urls(room)[1]).text


def test_every_route_takes_lists_all_and_says_the_totals(
    room: Classroom, new_browser: Callable[[], Browser]
) -> None:
    teacher = _signed_in(new_browser, room.teacher.email)
    _a, b, _c = room.students
    for url in _urls(room):
        assert teacher.get(url + "?lists=all").status_code == 200
        assert teacher.get(url + "?lists=everything").status_code == 422  # only `all`
    body = teacher.get(_urls(room)[2] + "?lists=all").json()
    assert (body["stuck_total"], body["not_started_total"]) == (1, 1)
    assert [s["user_id"] for s in body["stuck"]] == [b.id]
    one = teacher.get(_urls(room)[3]).json()
    assert (one["stuck_total"], one["not_started_total"]) == (1, 1)
    page = teacher.get(_urls(room)[0]).text
    assert "1 stuck:" in page and "1 not started" in page and 'href="?lists=all"' not in page
